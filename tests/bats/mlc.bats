#!/usr/bin/env bats
# make_lastz_chains (hillerlab) as its processes run hspz: the HSPZ process script, rendered
# for each call variant and run unchanged with the name hspZ, then its LASTZ_SEGMENTED script
# on every segments file with Debian's lastz.
#
# The command templates follow hillerlab/make_lastz_chains (the newest versions in our
# reference index; their code is not copied here, only the command lines they emit):
#  - modules/local/hspz/run/main.nf @ 20d0a22, `script:`:
#        hspZ run $args --hspthresh ${lastz_k} -r ${reference_sequence} -q ${query_sequence}
#            -o segments -D $tar --time --dump-plan plan.tsv
#    ($args = task.ext.args, default ''; $tar = "-Z" when task.ext.tar, else '');
#    the older call (its WDL task, subworkflow hspz_alignment @ cc7c25e) has no --hspthresh;
#  - modules/local/lastz_segmented/main.nf @ 87302da, `script:`, for each segments file S
#    (meta.id = S's base name without .segments):
#        lastz --segments=S --format=axt+ --traceback=800.0M --gappedthresh=${lastz_h}
#            --inner=${lastz_h} --ydrop=${lastz_y} --output=${meta.id}.axt
#            --rdotplot=${meta.id}.rdot ${reference_twobit}[multiple] ${query_twobit}[multiple]
#    with nextflow.config's defaults lastz_k 2400, lastz_h 2000, lastz_y 9400.
# The process's newer LASTZ_SEGMENTED (per (target, query) name pair, --strand,
# --allocate:traceback=1.99G) is not in our index, so it is not rendered here.
# Inputs come as the process stages them: FASTA (.fa.gz) or 2bit (the 2bit files here are
# hspz's own Galaxy-package 2bit, byte-identical to KegAlign's).
# With -Z hillerlab/hspZ writes segments.tar.gz of the bare segments files instead of the
# folder; make_lastz_chains has no step that unpacks it (its HSPZ `tarball` output is not
# consumed), so the test unpacks it the plain way (tar -xzf into a folder) and runs
# LASTZ_SEGMENTED on what it holds; the axt files must equal the variant without -Z.

load ../lib/common

AO=tests/data/apple_orange

setup() {
    require_hspz
    require_cmd lastz
    HZ_LINK="$(dirname "$HSPZ")/hspZ"
    [ -x "$HZ_LINK" ] || skip "no hspZ next to $HSPZ (the build makes the link)"
}

# render_hspz K TAR REF QRY — the HSPZ process script (K empty: the call without --hspthresh)
render_hspz() {
    local k="$1" tar="$2" ref="$3" qry="$4" args=""
    if [ -n "$k" ]; then
        printf 'hspZ \\\n  run \\\n  %s \\\n  --hspthresh %s \\\n  -r %s \\\n  -q %s \\\n  -o segments \\\n  -D \\\n  %s \\\n  --time \\\n  --dump-plan plan.tsv\n' \
            "$args" "$k" "$ref" "$qry" "$tar"
    else
        printf 'hspZ \\\n  run \\\n  %s \\\n  -r %s \\\n  -q %s \\\n  -o segments \\\n  -D \\\n  %s \\\n  --time \\\n  --dump-plan plan.tsv\n' \
            "$args" "$ref" "$qry" "$tar"
    fi
}

# render_lastz_segmented SEGMENTS H Y REF2BIT QRY2BIT — the LASTZ_SEGMENTED process script
render_lastz_segmented() {
    local s="$1" h="$2" y="$3" id
    id="$(basename "$s" .segments)"
    printf 'lastz \\\n  --segments=%s \\\n  --format=axt+ \\\n  --traceback=800.0M \\\n  --gappedthresh=%s \\\n  --inner=%s \\\n  --ydrop=%s \\\n  --output=%s.axt \\\n  --rdotplot=%s.rdot \\\n  %s[multiple] %s[multiple]\n' \
        "$s" "$h" "$h" "$y" "$id" "$id" "$4" "$5"
}

# run_variant DIR K TAR REF QRY — stage, run the HSPZ script, then LASTZ_SEGMENTED per file
run_variant() {
    local w="$1" s
    mkdir -p "$w/bin" && ln -sf "$HZ_LINK" "$w/bin/hspZ"
    render_hspz "$2" "$3" "$4" "$5" >"$w/hspz.sh"
    ( cd "$w" && PATH="$w/bin:$PATH" bash -e hspz.sh ) 2>"$w/hspz.err" || { cat "$w/hspz.err"; return 1; }
    grep -q '^hspz: time: ' "$w/hspz.err" && [ -s "$w/plan.tsv" ]
    if [ -n "$3" ]; then   # -Z: the archive instead of the folder; unpacked as it comes
        [ -s "$w/segments.tar.gz" ] && [ ! -e "$w/segments" ] || { echo "-Z: no archive, or a folder"; return 1; }
        tar -tzf "$w/segments.tar.gz" | grep -qv '^tmp[0-9]*\.block[0-9]*\.r[0-9]*\.[a-z]*\(\.split[0-9]*\)\?\.segments$' &&
            { echo "-Z: a member that is not a bare segments file"; return 1; }
        mkdir "$w/segments" && tar -xzf "$w/segments.tar.gz" -C "$w/segments"
    fi
    compgen -G "$w/segments/*.segments" >/dev/null
    for s in "$w"/segments/*.segments; do
        render_lastz_segmented "segments/$(basename "$s")" 2000 9400 ref.2bit query.2bit >"$w/lz.sh"
        ( cd "$w" && bash -e lz.sh ) || { echo "lastz failed on $s"; return 1; }
        # at least one alignment (an axt block's first line starts with its number)
        grep -q '^[0-9]' "$w/$(basename "$s" .segments).axt" || { echo "no alignment in the axt of $s"; return 1; }
    done
}

@test "mlc: make_lastz_chains' HSPZ script (K or not, -Z or not, FASTA or 2bit) runs unchanged; LASTZ_SEGMENTED gives non-empty axt" {
    local d="$BATS_TEST_TMPDIR" v
    # the 2bit inputs (and LASTZ_SEGMENTED's): hspz's Galaxy package 2bit files
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/pkg" --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    mkdir "$d/x" && tar -xzf "$d/pkg.tar.gz" -C "$d/x" galaxy/files/work/ref.2bit galaxy/files/work/query.2bit
    for v in "2400||fa" "2400|-Z|fa" "||fa" "2400||2bit" "|-Z|2bit"; do
        local k="${v%%|*}" rest="${v#*|}" w="$d/v$RANDOM"
        local tar="${rest%%|*}" kind="${rest#*|}"
        mkdir -p "$w" && cp "$d"/x/galaxy/files/work/*.2bit "$w/"
        if [ "$kind" = fa ]; then
            cp $AO/apple.fasta.gz $AO/orange.fasta.gz "$w/"
            run_variant "$w" "$k" "$tar" apple.fasta.gz orange.fasta.gz || { echo "variant $v"; return 1; }
        else
            cp "$w/ref.2bit" "$w/apple.2bit" && cp "$w/query.2bit" "$w/orange.2bit"
            run_variant "$w" "$k" "$tar" apple.2bit orange.2bit || { echo "variant $v"; return 1; }
        fi
        echo "$v $w" >>"$d/variants"
    done
    # the same K gives the same segments and the same alignments from FASTA and from 2bit;
    # the default K (no --hspthresh: hspz's 3000) gives fewer segments than K 2400
    local fa k24 nok tb
    fa="$(awk '$1 == "2400||fa" {print $2}' "$d/variants")"
    tb="$(awk '$1 == "2400||2bit" {print $2}' "$d/variants")"
    nok="$(awk '$1 == "||fa" {print $2}' "$d/variants")"
    same_outputs "$fa/segments" "$tb/segments"
    for k24 in "$fa"/*.axt; do cmp "$k24" "$tb/$(basename "$k24")"; done
    # -Z: the unpacked archive gives the same axt files as the folder (same K, FASTA or 2bit)
    local z zf zn n
    for z in "2400|-Z|fa 2400||fa" "|-Z|2bit ||fa"; do
        zf="$(awk -v v="${z% *}" '$1 == v {print $2}' "$d/variants")"
        zn="$(awk -v v="${z#* }" '$1 == v {print $2}' "$d/variants")"
        n=0
        for k24 in "$zn"/*.axt; do
            [ -s "$k24" ] && cmp "$k24" "$zf/$(basename "$k24")" || { echo "$z: $(basename "$k24")"; return 1; }
            n=$((n + 1))
        done
        [ "$n" -ge 2 ] && [ "$(ls "$zf"/*.axt | wc -l)" -eq "$n" ]
    done
    [ "$(cat "$nok"/segments/*.segments | wc -l)" -lt "$(cat "$fa"/segments/*.segments | wc -l)" ]
    # -D split the plus file (the automatic chunk of these two files)
    ls "$fa"/segments/*.split1.segments >/dev/null
}

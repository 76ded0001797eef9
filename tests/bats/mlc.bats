#!/usr/bin/env bats
# make_lastz_chains (hillerlab) as its processes run hspz: the HSPZ process script, rendered
# for each call variant and run unchanged with the name hspZ, then its LASTZ_SEGMENTED script
# on every segments file with Debian's lastz, and with hspz gapped as its lastz.
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
# --allocate:traceback=1.99G) is rendered by the last test, which runs it with Debian's lastz
# and with hspz gapped as `lastz` (docs/dropin.md) and compares every axt file.
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

# make_lastz_chains' newer LASTZ_SEGMENTED (modules/local/lastz_segmented/main.nf in our
# reference index, the versions after @87302da; no commit id recorded there): one lastz per
# (target, query) name pair of the segments file, with single-record selection REF.2bit/NAME
# (no [multiple]), the pairs' axt files concatenated into ${meta.id}.axt (meta.id: the segments
# file's base name).  Two variants, as `script:` renders them with its inputs:
#   strand: --strand from meta.id (*.minus* / *.plus*), --allocate:traceback=1.99G,
#           --gappedthresh=${lastz_l} --inner=${lastz_h} --ydrop=${lastz_y}
#   plain:  no --strand, --traceback=800.0M, --gappedthresh=${lastz_h} (the version before)
# render_segmented_pairs VARIANT ID SEGMENT REF2BIT QRY2BIT H L Y
render_segmented_pairs() {
    local v="$1" id="$2" seg="$3" ref="$4" qry="$5" h="$6" l="$7" y="$8"
    if [ "$v" = strand ]; then
        cat <<SH
case "$id" in
    *.minus*) strand=minus ;;
    *.plus*)  strand=plus  ;;
    *)
        strand=\$(awk -F'\\t' 'NF>=7 { print (\$7=="-" ? "minus" : "plus"); exit }' $seg)
        ;;
esac
if [ -z "\$strand" ]; then
    echo "LASTZ_SEGMENTED: cannot derive --strand from $seg (id=$id)" >&2
    exit 1
fi

SH
    fi
    cat <<SH
awk -F'\\t' 'NF { print \$1 "\\t" \$4 }' $seg | sort -u > pairs.txt
mkdir -p pairs
while IFS=\$'\\t' read -r ref query; do
    safe=\$(printf '%s__%s' "\$ref" "\$query" | tr -c 'A-Za-z0-9_.-' '_')
    awk -F'\\t' -v r="\$ref" -v q="\$query" '\$1==r && \$4==q' $seg > "pairs/\${safe}.segments"
    lastz \\
      --segments="pairs/\${safe}.segments" \\
      --format=axt+ \\
SH
    if [ "$v" = strand ]; then
        printf '      --allocate:traceback=1.99G \\\n      --gappedthresh=%s \\\n' "$l"
    else
        printf '      --traceback=800.0M \\\n      --gappedthresh=%s \\\n' "$h"
    fi
    printf '      --inner=%s \\\n      --ydrop=%s \\\n' "$h" "$y"
    [ "$v" = strand ] && printf '      --strand=$strand \\\n'
    cat <<SH
      --output="pairs/\${safe}.axt" \\
      $ref/\$ref $qry/\$query
done < pairs.txt
cat pairs/*.axt > $id.axt

cat <<-END_VERSIONS > versions.yml
"LASTZ_SEGMENTED":
    lastz: \$(lastz --version 2>&1 | head -1)
END_VERSIONS
SH
}

# segmented_pairs_same T Q REF2BIT QRY2BIT DIR — make_lastz_chains' HSPZ script (K 2400, -D) on
# T x Q, then both LASTZ_SEGMENTED variants on every segments file, each run in a task folder
# of its own (the segments file and the 2bit staged as links) once with Debian's lastz and once
# with docs/dropin.md's lastz (hspz gapped): every axt file byte-identical.  Prints
# "FILES PAIRS ALIGNMENTS INNER STRANDS" (INNER: alignments below L=3000, from H=2000).
segmented_pairs_same() {
    local t="$1" q="$2" r2="$3" q2="$4" w="$5" s id v tool d n=0 p=0 al=0 inner=0 strands=""
    mkdir -p "$w/bin" "$w/shim" && ln -sf "$HZ_LINK" "$w/bin/hspZ" && ln -sf "$HSPZ" "$w/bin/hspz"
    render_hspz 2400 "" "$t" "$q" >"$w/hspz.sh"
    ( cd "$w" && PATH="$w/bin:$PATH" bash -e hspz.sh ) 2>"$w/hspz.err" || { cat "$w/hspz.err"; return 1; }
    awk '/doc-test: file out\/mlc-bin\/lastz/ { f = 1; next } f && /^```bash/ { g = 1; next } g && /^```/ { exit } g' \
        docs/dropin.md >"$w/shim/lastz"
    chmod +x "$w/shim/lastz"
    grep -q '^exec hspz gapped "\$@"$' "$w/shim/lastz"
    for s in "$w"/segments/*.segments; do
        id="$(basename "$s" .segments)"
        for v in strand plain; do
            for tool in lastz hspz; do
                d="$w/task.$id.$v.$tool"
                mkdir "$d" && ln -s "$s" "$d/" && ln -s "$r2" "$d/ref.2bit" && ln -s "$q2" "$d/query.2bit"
                render_segmented_pairs "$v" "$id" "$id.segments" ref.2bit query.2bit 2000 3000 9400 >"$d/.command.sh"
                if [ "$tool" = hspz ]; then
                    ( cd "$d" && PATH="$w/shim:$w/bin:$PATH" bash -ue .command.sh ) || { echo "hspz: $v $id failed"; return 1; }
                    grep -q '^    lastz: hspz ' "$d/versions.yml"
                else
                    ( cd "$d" && bash -ue .command.sh ) || { echo "lastz: $v $id failed"; return 1; }
                    grep -q '^    lastz: lastz (version 1.04.22 ' "$d/versions.yml"
                fi
            done
            d="$w/task.$id.$v"
            [ "$(ls "$d.lastz/pairs/"*.axt | wc -l)" -eq "$(ls "$d.hspz/pairs/"*.axt | wc -l)" ]
            for f in "$d.lastz/$id.axt" "$d.lastz/pairs/"*.axt; do
                cmp "$f" "$d.hspz/${f#"$d.lastz/"}" || { echo "$v: $f differs"; return 1; }
            done
            grep -q '^0 ' "$d.lastz/$id.axt" || { echo "$v: no alignment in $id.axt"; return 1; }
            [ "$v" = strand ] || continue
            n=$((n + 1)); p=$((p + $(ls "$d.lastz/pairs/"*.axt | wc -l)))
            al=$((al + $(grep -c '^[0-9]' "$d.lastz/$id.axt")))
            inner=$((inner + $(awk '/^[0-9]/ && $9 < 3000' "$d.lastz/$id.axt" | wc -l)))
            case "$id" in *.minus*) strands="$strands minus" ;; *) strands="$strands plus" ;; esac
        done
    done
    echo "$n $p $al $inner $(tr ' ' '\n' <<<"$strands" | sort -u | xargs)"
}

@test "mlc: LASTZ_SEGMENTED per name pair (H=2000, L=3000, Y=9400, both strands) with lastz = hspz gapped: every axt byte-identical to Debian's lastz" {
    local d="$BATS_TEST_TMPDIR" P=tests/data/pseudocat_pseudopig_named AG=tests/data/tiny_aglobin_human_vs_cow
    # pseudocat x 3 pig records (FASTA): both strands, the minus file split by -D; the 2bit
    # staged for LASTZ_SEGMENTED are hspz's Galaxy-package 2bit of the same FASTA
    hz_run run -r $P/pseudocat_named.fa -q $P/pseudopig_named.fa -o "$d/pkg" --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    mkdir "$d/x" && tar -xzf "$d/pkg.tar.gz" -C "$d/x" galaxy/files/work/ref.2bit galaxy/files/work/query.2bit
    cp $P/*.fa "$d/" && mkdir "$d/pc" && cp "$d"/*.fa "$d/pc/"
    run segmented_pairs_same pseudocat_named.fa pseudopig_named.fa "$d/x/galaxy/files/work/ref.2bit" "$d/x/galaxy/files/work/query.2bit" "$d/pc"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "4 6 25 0 minus plus" ]
    ls "$d"/pc/segments/*.minus.split2.segments
    # alpha-globin (soft-masking, N runs): lastz's own aglobin.2bit as REF.2bit/human and
    # QRY.2bit/cow, H=2000's interpolation adds alignments below L
    mkdir "$d/ag" && cp $AG/aglobin_human.fa.gz $AG/aglobin_cow.fa.gz "$d/ag/"
    run segmented_pairs_same aglobin_human.fa.gz aglobin_cow.fa.gz "$PWD/$AG/aglobin.2bit" "$PWD/$AG/aglobin.2bit" "$d/ag"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "1 1 66 2 plus" ]
    # the older LASTZ_SEGMENTED (@87302da, --rdotplot=) needs lastz: hspz gapped refuses it with
    # one line and writes no axt (docs/dropin.md)
    render_lastz_segmented segments/tmp1.block0.r0.plus.segments 2000 9400 aglobin.2bit/human aglobin.2bit/cow >"$d/ag/old.sh"
    ln -s "$PWD/$AG/aglobin.2bit" "$d/ag/aglobin.2bit"
    run bash -c "cd '$d/ag' && PATH='$d/ag/shim:$d/ag/bin:$PATH' bash -e old.sh"
    echo "$output"
    [ "$status" -ne 0 ]
    [ "$output" = "hspz gapped: lastz option '--rdotplot=tmp1.block0.r0.plus.rdot' is not supported by hspz gapped; run lastz for it" ]
    [ ! -e "$d/ag/tmp1.block0.r0.plus.axt" ]
}

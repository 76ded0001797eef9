#!/usr/bin/env bats
# Target index and many queries (src/run/index.c, src/run/pipeline.c; README "Target index" and
# "Many queries"): hspz index, run --index, run --query-list, and hillerlab/hspZ's
# --dump-manifest / --from-manifest.  Every output must equal separate plain runs.

load ../lib/common

AO=tests/data/apple_orange
MT=tests/data/tiny_mtdna_human_vs_orangutan
SMALL=(--seq-block-size 100000 --lastz-interval-size 40000 --wga-chunk-size 15000)

setup() {
    require_hspz
}


@test "index: 4-block index (direct tables) -> run --index equals run -r (files, tarball, digest); settings from the index" {
    local d="$BATS_TEST_TMPDIR"
    hz_run index -r $AO/apple.fasta.gz -o "$d/apple.hzi" --seq-block-size 100000 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ -s "$d/apple.hzi" ] && [ -z "$(ls "$d" | grep tmp-)" ]
    [ "$(head -c 8 "$d/apple.hzi")" = "HSPZIDX" ]
    # no -r, no --seq-block-size: both come from the index
    hz_run run --index "$d/apple.hzi" -q $AO/orange.fasta.gz -o "$d/ix" --lastz-interval-size 40000 --wga-chunk-size 15000 --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/plain" "${SMALL[@]}" --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    same_run "$d/plain" "$d/ix"
    cmp "$d/plain.tar.gz" "$d/ix.tar.gz"
    python3 - "$d/ix/manifest.json" "$d/apple.hzi" "$HZ_GOLDEN/apple_orange/blocks_small/case.json" <<'PY'
import json, sys
m, case = json.load(open(sys.argv[1])), json.load(open(sys.argv[3]))
assert m["canonical_digest_sha256"] == case["canonical_digest_sha256"]
assert m["index"]["path"] == sys.argv[2] and len(m["index"]["sha256"]) == 64
v = m["config"]["values"]
assert v["seq_block_size"] == {"value": 100000, "source": "index", "section": "plan"}, v["seq_block_size"]
assert v["seed"]["source"] == "index" and v["step"]["source"] == "index"
assert m["inputs"][0]["path"].endswith("apple_orange/apple.fasta.gz")
PY
}

@test "index: sorted tables (14of22) with -r checked; a conflicting --seed or block size is refused by name" {
    local d="$BATS_TEST_TMPDIR"
    hz_run index -r $MT/MT-human.fa -o "$d/mt.hzi" --seed 14of22 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(stat -c %s "$d/mt.hzi")" -lt 1000000 ]   # no 4^14 bucket array: the sorted mode
    hz_run run --index "$d/mt.hzi" -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/ix" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/plain" --seed 14of22 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    same_run "$d/plain" "$d/ix"
    [ "$(seglines "$d/ix" | wc -l)" -gt 0 ]
    hz_run run --index "$d/mt.hzi" -q $MT/MT-orang.fa -o "$d/bad" --seed 12of19
    [ "$status" -eq 1 ] && [ "$(printf "%s\n" "$stderr" | wc -l)" -eq 1 ]
    [[ "$stderr" == "hspz: $d/mt.hzi: an index built with --seed 14of22; this run asks for another --seed"* ]]
    hz_run run --index "$d/mt.hzi" -q $MT/MT-orang.fa -o "$d/bad" --seq-block-size 5000
    [ "$status" -eq 1 ] && [[ "$stderr" == *"an index built with --seq-block-size 500000000"* ]]
    hz_run run --index "$d/mt.hzi" -r $MT/MT-orang.fa -q $MT/MT-orang.fa -o "$d/bad"
    [ "$status" -eq 1 ] && [[ "$stderr" == "hspz: $MT/MT-orang.fa: not the target of the index $d/mt.hzi"* ]]
    [ ! -e "$d/bad" ] && [ -z "$(ls "$d" | grep tmp-)" ]
}

@test "index: a damaged, truncated or foreign index file is refused with one line, nothing written" {
    local d="$BATS_TEST_TMPDIR"
    hz_run index -r $MT/MT-human.fa -o "$d/mt.hzi" --seed 14of22 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    cp "$d/mt.hzi" "$d/flip.hzi"
    # one byte of the record bytes section (it starts after the two record tables, page 3)
    printf 'X' | dd of="$d/flip.hzi" bs=1 seek=$((3 * 4096 + 100)) conv=notrunc status=none
    hz_run run --index "$d/flip.hzi" -q $MT/MT-orang.fa -o "$d/o1"
    [ "$status" -eq 1 ] && [ "$(printf "%s\n" "$stderr" | wc -l)" -eq 1 ]
    [[ "$stderr" == "hspz: $d/flip.hzi: checksum mismatch in section 'record_bytes' (the 16 MiB piece at byte 12288;"* ]]
    head -c 20000 "$d/mt.hzi" > "$d/short.hzi"
    hz_run run --index "$d/short.hzi" -q $MT/MT-orang.fa -o "$d/o2"
    [ "$status" -eq 1 ] && [[ "$stderr" == "hspz: $d/short.hzi: damaged or truncated index"* ]]
    # a flipped byte in the prefix (header offset, format, byte-order mark) is damage, said so (issue 31)
    local off want
    for off in 23:"damaged or truncated index (its prefix places the header at byte " 9:"damaged index (format number " \
               13:"damaged index (its byte-order mark is neither order's)"; do
        want="${off#*:}"; off="${off%%:*}"
        cp "$d/mt.hzi" "$d/p.hzi"
        printf '\x5a' | dd of="$d/p.hzi" bs=1 seek="$off" conv=notrunc status=none
        hz_run run --index "$d/p.hzi" -q $MT/MT-orang.fa -o "$d/o5"
        [ "$status" -eq 1 ] && [[ "$stderr" == "hspz: $d/p.hzi: $want"* ]] || { show_run; return 1; }
        [ "$(printf "%s\n" "$stderr" | wc -l)" -eq 1 ] && [ ! -e "$d/o5" ]
    done
    hz_run run --index $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o3"
    [ "$status" -eq 1 ] && [[ "$stderr" == "hspz: $MT/MT-human.fa: not an hspz index"* ]]
    [ ! -e "$d/o1" ] && [ ! -e "$d/o2" ] && [ ! -e "$d/o3" ]
    [ -z "$(ls "$d" | grep tmp-)" ]
    # hspz index: never over its input, an existing file only with --force, run options refused
    cp $MT/MT-human.fa "$d/t.fa"
    hz_run index -r "$d/t.fa" -o "$d/t.fa" --force
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: $d/t.fa: the index would overwrite the target $d/t.fa" ]]
    cmp "$d/t.fa" $MT/MT-human.fa
    hz_run index -r "$d/t.fa" -o "$d/mt.hzi"
    [ "$status" -eq 1 ] && [[ "$stderr" == *"the index file exists (use --force to replace it)" ]]
    mkfifo "$d/fifo"   # never replaced, never opened for reading (no hang)
    hz_run index -r "$d/t.fa" -o "$d/fifo" --force
    [ "$status" -eq 1 ] && [[ "$stderr" == *"not a regular file"* ]] && [ -p "$d/fifo" ]
    hz_run run --index "$d/fifo" -q $MT/MT-orang.fa -o "$d/o4"
    [ "$status" -eq 1 ] && [[ "$stderr" == "hspz: $d/fifo: not a regular file" ]]
    hz_run run --from-manifest "$d/fifo" -o "$d/o4"
    [ "$status" -eq 1 ] && [[ "$stderr" == *"not a regular file"* ]] && [ ! -e "$d/o4" ]
    hz_run index -r "$d/t.fa" -o "$d/x.hzi" --xdrop 5
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: -x/--xdrop is not an option of hspz index"* ]]
}

@test "query list: 3 queries (relative paths, comments) -> OUTDIR/00000n equal separate runs, tarballs too; queries.tsv" {
    local d="$BATS_TEST_TMPDIR" n
    mkdir "$d/q"
    cp $AO/orange.fasta.gz $AO/apple.fasta.gz "$d/q/"
    printf '# three queries\n%s\n\n  orange.fasta.gz\napple.fasta.gz\r\n%s\n' "$PWD/$MT/MT-orang.fa" "$PWD/$AO/orange.fasta.gz" > "$d/q/list.txt"
    hz_run run -r $AO/apple.fasta.gz --query-list "$d/q/list.txt" -o "$d/batch" "${SMALL[@]}" --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(ls "$d/batch" | tr '\n' ' ')" = "000001 000001.tar.gz 000002 000002.tar.gz 000003 000003.tar.gz 000004 000004.tar.gz queries.tsv " ]
    n=0
    for q in "$PWD/$MT/MT-orang.fa" "$d/q/orange.fasta.gz" "$d/q/apple.fasta.gz" "$PWD/$AO/orange.fasta.gz"; do
        n=$((n + 1))
        hz_run run -r $AO/apple.fasta.gz -q "$q" -o "$d/sep$n" "${SMALL[@]}" --tarball --quiet
        [ "$status" -eq 0 ] || { show_run; return 1; }
        same_run "$d/sep$n" "$d/batch/00000$n"
        cmp "$d/sep$n.tar.gz" "$d/batch/00000$n.tar.gz"
    done
    python3 - "$d/batch/queries.tsv" "$d" <<'PY'
import csv, hashlib, json, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
assert [r["job"] for r in rows] == ["000001", "000002", "000003", "000004"]
assert rows[1]["query"] == sys.argv[2] + "/q/orange.fasta.gz"
for i, r in enumerate(rows, 1):
    assert r["sha256"] == hashlib.sha256(open(r["query"], "rb").read()).hexdigest()
    m = json.load(open(f"{sys.argv[2]}/batch/{r['job']}/manifest.json"))
    assert int(r["segments"]) == m["segment_lines"] and m["run"]["output_directory"].endswith("/batch/" + r["job"])
assert rows[0]["segments"] == "0" and int(rows[1]["segments"]) > 1000
PY
}

@test "query list with --index equals separate runs; a bad list or a bad query later in the list leaves nothing" {
    local d="$BATS_TEST_TMPDIR"
    hz_run index -r $MT/MT-human.fa -o "$d/mt.hzi" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    printf '%s\n%s\n' "$PWD/$MT/MT-orang.fa" "$PWD/$MT/MT-human.fa" > "$d/list"
    hz_run run --index "$d/mt.hzi" --query-list "$d/list" -o "$d/b" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/s1" --quiet
    hz_run run -r $MT/MT-human.fa -q $MT/MT-human.fa -o "$d/s2" --quiet
    same_run "$d/s1" "$d/b/000001"
    same_run "$d/s2" "$d/b/000002"
    [ "$(seglines "$d/b/000002" | wc -l)" -ne "$(seglines "$d/b/000001" | wc -l)" ]
    printf '%s\n%s\n' "$PWD/$MT/MT-orang.fa" "$d/missing.fa" > "$d/list2"
    hz_run run --index "$d/mt.hzi" --query-list "$d/list2" -o "$d/b2"
    [ "$status" -eq 1 ] && [ "$stderr" = "hspz: $d/list2: line 2: $d/missing.fa: No such file or directory" ]
    [ ! -e "$d/b2" ] && [ -z "$(ls "$d" | grep tmp-)" ]
    printf '# nothing\n\n' > "$d/empty"
    hz_run run -r $MT/MT-human.fa --query-list "$d/empty" -o "$d/b3"
    [ "$status" -eq 1 ] && [[ "$stderr" == "hspz: $d/empty: no query paths"* ]] && [ ! -e "$d/b3" ]
    hz_run run -r $MT/MT-human.fa --query-list "$d/list" -q $MT/MT-orang.fa -o "$d/b4"
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: --query-list does not go with -q"* ]]
}

@test "drop-in: --dump-manifest writes the run's plan; --from-manifest replays it into the same OUTDIR bytes, other inputs refused" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/a" "${SMALL[@]}" -D 40 --tarball --dump-manifest "$d/frozen.json" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["kind"]=="hspz-plan" and len(p["units"])==16' "$d/frozen.json"
    hz_run run --from-manifest "$d/frozen.json" -o "$d/b" --threads 1 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    same_run "$d/a" "$d/b"
    cmp "$d/a.tar.gz" "$d/b.tar.gz"
    python3 -c 'import json,sys; u=json.load(open(sys.argv[1]))["unit"]; assert u["kind"]=="replay" and u["ids"]==list(range(1,17))' "$d/b/manifest.json"
    hz_run run --from-manifest "$d/frozen.json" -q $AO/apple.fasta.gz -o "$d/c"
    [ "$status" -eq 1 ] && [[ "$stderr" == "hspz: $AO/apple.fasta.gz: not the query of the plan"* ]] && [ ! -e "$d/c" ]
    hz_run run --from-manifest "$d/frozen.json" -o "$d/c" --xdrop 5
    [ "$status" -eq 2 ] && [ ! -e "$d/c" ]
}

@test "index, query list: never deleted or overwritten (--force on an OUTDIR holding them, --dump-manifest onto them); hspz config shows the index's settings" {
    local d="$BATS_TEST_TMPDIR"
    mkdir "$d/o"
    hz_run index -r $MT/MT-human.fa -o "$d/o/mt.hzi" --seed 14of22 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    printf '%s\n' "$PWD/$MT/MT-orang.fa" > "$d/o/list"
    hz_run run --index "$d/o/mt.hzi" -q $MT/MT-orang.fa -o "$d/o" --force
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: $d/o: --force would delete the input $d/o/mt.hzi that lies inside it" ]]
    hz_run run -r $MT/MT-human.fa --query-list "$d/o/list" -o "$d/o" --force
    [ "$status" -eq 2 ] && [[ "$stderr" == *"--force would delete the input $d/o/list that lies inside it" ]]
    hz_run run --index "$d/o/mt.hzi" -q $MT/MT-orang.fa -o "$d/x" --dump-manifest "$d/o/mt.hzi" --force
    [ "$status" -eq 2 ] && [[ "$stderr" == *"would overwrite the input $d/o/mt.hzi" ]]
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/y" --tarball "$d/t.tgz" --dump-manifest "$d/t.tgz"
    [ "$status" -eq 2 ] && [ ! -e "$d/y" ] && [ ! -e "$d/t.tgz" ]
    [ -s "$d/o/mt.hzi" ] && [ -s "$d/o/list" ]
    hz_run config --index "$d/o/mt.hzi"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$output" == *'seed: "14of22"  # index - '* ]]
}

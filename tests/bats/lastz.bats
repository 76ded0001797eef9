#!/usr/bin/env bats
# hspz against an independent program: Debian's LASTZ 1.04.22, ungapped, same parameters.
# RULES.md "LASTZ comparison": equal on the tiny pairs (pseudocat: coordinates, as KegAlign
# names a record whose header starts with a blank ''); on bacteria the sorted sets differ by
# a known number of lines.  Each test prints the classified differences and fails when a side
# has more one-sided lines (or more of class 'other') than KegAlign 0.3.x has.

load ../lib/common

setup() {
    require_hspz
    require_cmd lastz
}

# lastz_vs_hspz TARGET QUERY [lastz_compare.py options...]
lastz_vs_hspz() {
    local t="$1" q="$2"; shift 2
    local d="$BATS_TEST_TMPDIR"
    gunzip_to "$t" "$d/target.fa"
    gunzip_to "$q" "$d/query.fa"
    hz_run run -r "$t" -q "$q" -o "$d/out" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    local t0=$SECONDS
    lastz "$d/target.fa[multiple]" "$d/query.fa" "${HZ_LASTZ_ARGS[@]}" >"$d/lastz.txt"
    echo "lastz: $((SECONDS - t0)) s"
    python3 "$HZ_LIB/lastz_compare.py" "$d/out" "$d/lastz.txt" "$@"
}

@test "lastz: apple/orange equal (1,225 lines)" {
    lastz_vs_hspz tests/data/apple_orange/apple.fasta.gz tests/data/apple_orange/orange.fasta.gz
}

@test "lastz: mtDNA human/orangutan equal" {
    lastz_vs_hspz tests/data/tiny_mtdna_human_vs_orangutan/MT-human.fa \
                  tests/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa
}

@test "lastz: alpha-globin human/cow equal" {
    lastz_vs_hspz tests/data/tiny_aglobin_human_vs_cow/aglobin_human.fa.gz \
                  tests/data/tiny_aglobin_human_vs_cow/aglobin_cow.fa.gz
}

@test "lastz: pseudocat/pseudopig equal coordinates (names blanked)" {
    lastz_vs_hspz tests/data/pseudocat_pseudopig/pseudocat.fa \
                  tests/data/pseudocat_pseudopig/pseudopig.fa --blank-names
}

@test "lastz: pseudocat/pseudopig with real names equal" {
    lastz_vs_hspz tests/data/pseudocat_pseudopig_named/pseudocat_named.fa \
                  tests/data/pseudocat_pseudopig_named/pseudopig_named.fa
}

@test "lastz: pseudocat/pseudopig.2bit query equal (names blanked)" {
    # LASTZ reads the 2bit directly; hspz reads it too.
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r tests/data/pseudocat_pseudopig/pseudocat.fa \
        -q tests/data/pseudocat_pseudopig/pseudopig.2bit -o "$d/out" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    lastz "tests/data/pseudocat_pseudopig/pseudocat.fa[multiple]" \
        tests/data/pseudocat_pseudopig/pseudopig.2bit "${HZ_LASTZ_ARGS[@]}" >"$d/lastz.txt"
    python3 "$HZ_LIB/lastz_compare.py" "$d/out" "$d/lastz.txt" --blank-names
}

# Bacteria: the counts are those of the KegAlign 0.3.x goldens against LASTZ 1.04.22
# (RULES.md; 'other' = no LASTZ line on the same diagonal overlaps the hspz line).
@test "lastz: H. pylori differences within 17 only-hspZ / 13 only-LASTZ" {
    require_shared
    local d="$HSPZ_SHARED/data/small_hpylori_g27_vs_els37"
    lastz_vs_hspz "$d/hpylori_G27.fa.gz" "$d/hpylori_ELS37.fa.gz" \
        --max-only-hspz 17 --max-only-lastz 13 --max-other-hspz 3 --max-other-lastz 0
}

@test "lastz: S. aureus differences within 70 only-hspZ / 42 only-LASTZ" {
    require_shared
    local d="$HSPZ_SHARED/data/small_saureus_n315_vs_usa300"
    lastz_vs_hspz "$d/saureus_N315.fa.gz" "$d/saureus_USA300_FPR3757.fa.gz" \
        --max-only-hspz 70 --max-only-lastz 42 --max-other-hspz 28 --max-other-lastz 0
}

@test "lastz: E. coli differences within 135 only-hspZ / 27 only-LASTZ" {
    require_shared
    local d="$HSPZ_SHARED/data/small_ecoli_k12_vs_ecoli_536"
    lastz_vs_hspz "$d/ecoli_K12_MG1655.fa.gz" "$d/ecoli_536_NC_008253.fa.gz" \
        --max-only-hspz 135 --max-only-lastz 27 --max-other-hspz 111 --max-other-lastz 3
}

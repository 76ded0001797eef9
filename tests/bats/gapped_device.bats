#!/usr/bin/env bats
# hspz gapped --device (issue 35; src/gapped/gapped_dev.h): the flag, the refusal where there is
# no GPU, and the device path's commit machinery run with the "emu" device (the GPU kernel's
# code on the host) against lastz 1.04.22's goldens.  The GPU itself is tested on the device
# machine (tests/gpu/gapped_device.sh, tests/gpu/gapped_gpu.sh).

load ../lib/common

setup() {
    require_hspz
    [ -d "$HSPZ_SHARED/golden/lastz-gapped" ] ||
        skip "../shared is absent ($HSPZ_SHARED): this case uses the lastz-gapped goldens"
}

golden() { run "$HZ_REPO/tests/lib/gapped_golden.sh" "$1" "$2" "$3" "$BATS_TEST_TMPDIR/w$2$3${4:-}" ${4:+"$4"}; echo "$output"; [ "$status" -eq 0 ]; }

# the mtDNA golden's command line, in its own folder
mt_cmd() {
    local G="$HSPZ_SHARED/golden/lastz-gapped/tiny_mtdna_human_vs_orangutan/maf" D="$HSPZ_SHARED/data/tiny_mtdna_human_vs_orangutan"
    cd "$BATS_TEST_TMPDIR" && cp "$G"/*.name "$G"/tmp1.block0.r0.plus.segments .
    MT=("$D/MT-human.fa[nameparse=darkspace][multiple][subset=ref_block0.name]" "$D/MT-orang.fa[nameparse=darkspace][subset=query_block0.name]"
        --format=maf- --ydrop=9430 --gappedthresh=3000 --strand=plus --segments=tmp1.block0.r0.plus.segments)
}

@test "gapped --device: a bad value is refused with one line, nothing written" {
    mt_cmd
    run "$HSPZ" gapped "${MT[@]}" --output=o.maf --device=gpu
    [ "$status" -ne 0 ]
    [ "$output" = "hspz gapped: bad --device '--device=gpu' (cpu, cuda or auto)" ]
    [ ! -e o.maf ]
    run "$HSPZ" gapped --outdir x -r a -q b --device tpu
    [ "$status" -ne 0 ]
    [ "$output" = "hspz gapped: bad --device 'tpu' (cpu, cuda or auto)" ]
}

@test "gapped --device=cuda where no GPU can run it: refused with the reason, nothing written" {
    if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then skip "a GPU is visible here (tests/gpu/gapped_gpu.sh covers it)"; fi
    mt_cmd
    run "$HSPZ" gapped "${MT[@]}" --output=o.maf --device=cuda
    echo "$output"
    [ "$status" -eq 1 ]
    [[ "$output" == "hspz gapped: --device=cuda: "* ]]
    [[ "$output" == *"built without CUDA"* || "$output" == *"no CUDA device"* ]]
    [ ! -e o.maf ]
}

@test "gapped --device=auto without a GPU, and --device=cpu: lastz's bytes, nothing on stderr" {
    if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then skip "a GPU is visible here"; fi
    HSPZ_GAPPED_EXTRA=--device=auto golden tiny_mtdna_human_vs_orangutan maf plus
    HSPZ_GAPPED_EXTRA=--device=cpu golden tiny_aglobin_human_vs_cow maf plus
}

@test "gapped --device=emu (the kernel's code on the host, results committed in lastz's order): the goldens" {
    HSPZ_GAPPED_EXTRA=--device=emu golden tiny_aglobin_human_vs_cow maf plus
    HSPZ_GAPPED_EXTRA=--device=emu golden tiny_lastz_pseudocat_vs_pseudopig maf minus
    HSPZ_GAPPED_EXTRA=--device=emu golden tiny_kegalign_apple_vs_orange_SYNTHETIC maf plus 3
    HSPZ_GAPPED_EXTRA=--device=emu golden tiny_aglobin_human_vs_cow axt plus 2
}

@test "gapped --device=emu in batches of 4 halves: the same bytes" {
    HSPZ_GAPPED_BATCH=4 HSPZ_GAPPED_EXTRA=--device=emu golden tiny_kegalign_apple_vs_orange_SYNTHETIC axt minus
}

@test "gapped --device=emu with a pool too small for the long halves (HSPZ_GAPPED_POOL): they are left to the CPU, the same bytes" {
    HSPZ_GAPPED_POOL=1100000 HSPZ_GAPPED_EXTRA=--device=emu golden tiny_aglobin_human_vs_cow maf plus
    mt_cmd
    HSPZ_GAPPED_STATS=1 HSPZ_GAPPED_POOL=1100000 "$HSPZ" gapped "${MT[@]}" --output=small.maf --device=emu 2> small.err
    "$HSPZ" gapped "${MT[@]}" --output=cpu.maf --device=cpu
    cmp small.maf cpu.maf
    cat small.err
    # "pass: A anchors, H halves on emu in S s (L launches, R halves run again; demand at most: ...), F left to the CPU, D redone; the pass took T s"
    local line; line=$(grep '^hspz gapped: pass: ' small.err)
    local on left; on=$(sed -E 's/.* ([0-9]+) halves on emu.*/\1/' <<<"$line"); left=$(sed -E 's/.* ([0-9]+) left to the CPU.*/\1/' <<<"$line")
    [ "$on" -gt 0 ]
    [ "$left" -gt 0 ]
}

@test "gapped --device=emu: the truncation golden (traceback 200K: halves at the limit redone on the CPU, messages in order)" {
    mt_cmd
    local E="$HSPZ_SHARED/golden/lastz-gapped/edge_cases_mtdna"
    cp "$E/base.segments" .
    "$HSPZ" gapped "${MT[@]/--segments=tmp1.block0.r0.plus.segments/--segments=base.segments}" --traceback=200K \
        --output=t.out --device=emu 2> t.err && rc=0 || rc=$?
    [ "$rc" = "$(cat "$E/base_traceback200K.rc")" ]
    cmp t.out "$E/base_traceback200K.out"
    cmp t.err "$E/base_traceback200K.err"
}

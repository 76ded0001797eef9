#!/bin/bash
# device_repeat_check — issue 12 (item 8, faults, sanitizers) and issue 13 (memory) on the
# device, run from the repo root with the carry .dev/ (bin/hspz, bin/hspz-before, bin/fuzz_chunk,
# lib.tar.xz, cases/, data/, pf/, zy/, rep/).  Output under $OUT.
#   bench/device_repeat_check.sh check   GPU suite on the tiny golden cases, differential fuzz,
#                                        HSPZ_FAULT injection, compute-sanitizer memcheck,
#                                        racecheck and initcheck
#   bench/device_repeat_check.sh bench   before/after, alternating, 2 runs each: the repeat
#                                        inputs, medium Zymoseptoria, the Plasmodium flood
#                                        (wall, peak RSS, identical outputs)
set -u
what=${1:?check|bench}
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib PATH=$PWD/.dev/bin:$PATH
exec > >(tee "$OUT/device_repeat_check.$what.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for b in hspz-before hspz; do [ -x .dev/bin/$b ] && echo "$b: $(.dev/bin/$b version --verbose | sed -n 2p)"; done
W=/tmp/rc; rm -rf $W; mkdir -p $W
AO=tests/data/apple_orange
if [ "$what" = check ]; then
    CASES='^(apple|tiny|pseudocat)' tests/gpu/device_suite.sh "$OUT" | tail -3
    echo "== differential fuzz"
    .dev/bin/fuzz_chunk --iters 150 --seed 4242 | tail -2
    .dev/bin/fuzz_chunk --cpu-only --iters 300 --seed 9000 | tail -1
    echo "== HSPZ_FAULT"
    fpass=0; ffail=0
    for f in gpu-alloc:1 gpu-alloc:2 gpu-alloc:3 gpu-alloc:5 gpu-alloc:9 gpu-alloc:14 gpu-kernel:1 gpu-kernel:2 gpu-kernel:7; do
        o=$W/fault; rm -rf $o $o.*
        HSPZ_FAULT=$f .dev/bin/hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o $o --tarball --device cuda --threads 4 2>$W/err; rc=$?
        nerr=$(grep -vc '^hspz: note:' $W/err)
        left=$(ls -d $o $o.tmp-* $o.tar.gz* 2>/dev/null | wc -l)
        inj=$(grep -c 'injected by HSPZ_FAULT' $W/err)
        if [ $rc -eq 1 ] && [ "$nerr" -eq 1 ] && [ "$left" -eq 0 ] && [ "$inj" -eq 1 ]; then fpass=$((fpass+1)); r=PASS
        elif [ $rc -eq 0 ] && [ "$inj" -eq 0 ] && [ "$left" -eq 2 ]; then fpass=$((fpass+1)); r="PASS (no such allocation/launch: the run completed)"
        else ffail=$((ffail+1)); r=FAIL; fi
        echo "$r $f: exit $rc, $nerr error line(s), $left left: $(grep -v '^hspz: note:' $W/err | head -c 300)"
    done
    rm -rf $W/fault*
    .dev/bin/hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o $W/fault --tarball --device cuda --quiet && echo "rerun without HSPZ_FAULT: exit 0" || ffail=$((ffail+1))
    echo "FAULTS: $fpass passed, $ffail failed"
    echo "== compute-sanitizer"
    CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
    echo "compute-sanitizer: ${CS:-none}"
    if [ -n "$CS" ]; then
        for tool in memcheck racecheck initcheck; do
            rm -rf $W/cs
            s=$EPOCHREALTIME
            timeout 170 $CS --tool $tool --error-exitcode 99 .dev/bin/hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz \
                -o $W/cs --device cuda --threads 2 --quiet >$W/cs.$tool 2>&1; rc=$?
            echo "$tool: exit $rc ($(awk "BEGIN{printf \"%.0f\", $EPOCHREALTIME - $s}") s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|error' $W/cs.$tool | tail -2 | tr '\n' ' ')"
            cp $W/cs.$tool "$OUT/"
        done
    fi
    exit 0
fi
run() {   # BIN IN T Q TAG [extra]
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
b, name, t, q, tag = sys.argv[1:6]
o = f"/tmp/rc/{name}.{tag}"
s = time.time()
rc = subprocess.call([f".dev/bin/{b}", "run", "-r", t, "-q", q, "-o", o, "--device", "cuda", "--quiet", "--force"] + sys.argv[6:])
w = time.time() - s
r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1048576
print(f"{name} {b:12s} {tag}: exit {rc}, wall {w:.2f} s, peak RSS {r:.2f} GiB", flush=True)
PY
}
for name in array a80 zymo plasmodium; do
    x=""
    case $name in
        array) T=.dev/rep/array.fa Q=$T ;;
        a80) T=.dev/rep/a80.fa Q=$T x="--strand plus" ;;
        zymo) T=.dev/zy/ztritici_IPO323.fa.gz Q=.dev/zy/zpseudotritici_221.fa.gz ;;
        plasmodium) T=$(ls .dev/pf/*falciparum* | head -1) Q=$(ls .dev/pf/*knowlesi* | head -1) ;;
    esac
    for i in 1 2; do
        set -- hspz-before hspz; [ $i = 2 ] && set -- hspz hspz-before
        for b in "$@"; do
            [ $name = a80 ] && [ $b = hspz-before ] && continue   # minutes before the change (CPU: 302 s)
            run $b $name $T $Q $b.$i $x
        done
    done
    if [ -d $W/$name.hspz-before.1 ]; then
        diff -r -x manifest.json $W/$name.hspz-before.1 $W/$name.hspz.1 >/dev/null && echo "$name: after == before (all files)" || echo "$name: DIFFERENT"
    fi
    echo "$name segments: $(cat $W/$name.hspz.1/*.segments | wc -l); funnel: $(python3 -c "import json; f=json.load(open('$W/$name.hspz.1/manifest.json'))['funnel']; print(f)")"
    rm -rf $W/$name.*
done

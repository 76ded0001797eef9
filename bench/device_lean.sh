#!/bin/bash
# device_lean — issue 13 items 3 and the 1 Gbp memory target on the device machine: the
# target seed table kept on the GPU, query blocks without host seeding text, block encoding
# on threads.  From the repo root with the carry .dev/ (bin/hspz, bin/hspz-before,
# bin/fuzz_chunk, bin/simulate_pair, lib.tar.xz, cases/, data/, zy/, ye/).  Log under $OUT.
#   bench/device_lean.sh check   tests/gpu/device_suite.sh on the tiny golden cases and the
#                                differential fuzz (odd variants keep the table on the device)
#   bench/device_lean.sh bench   ARMS (default "hspz-before hspz") rotating, REPS runs each (default 3),
#                                on INPUTS (default "zymo yeast"; zymoblocks = zymo in 8 Mbp
#                                blocks, several on each side; plasmodium = the AT-rich
#                                flood, .dev/pf): wall, peak RSS, the
#                                manifest's load / plan / seedtable / wall, the HSPZ_TRACE timeline
#                                of binaries that know it; identical files
#   bench/device_lean.sh faults  HSPZ_FAULT for allocations 1..FAULT_MAX (30) and launches
#                                1, 2, 7, default and 64-anchor tiles: a clean stop or the
#                                files of a run without faults; compute-sanitizer memcheck,
#                                initcheck, racecheck on apple x orange and memcheck,
#                                initcheck on 3 fuzz cases
#   bench/device_lean.sh rss     peak RSS of yeast self and medium Zymoseptoria at --threads
#                                1, 4, 16 and with HSPZ_DEVICE_DEDUP=0
#   bench/device_lean.sh fixed   process start, a tiny pair on the CPU and on the GPU (3 each)
#   bench/device_lean.sh timeline  one HSPZ_TRACE run of hspz on each of INPUTS (default "yeast
#                                zymo"), every trace line: the emits and the digest's phases
#   bench/device_lean.sh hashrate  the host's CPU and one SHA-256 stream's rate (what bounds the
#                                canonical digest): over the flood's segment files after one
#                                hspz run (its HSPZ_TRACE timeline), and over 256 MiB in memory
#   bench/device_lean.sh scale   SIZES (Mbp per side, default "300") from bench/simulate_pair
#                                (seed 1, 10 % divergence), ARMS (default "hspz-before hspz")
#                                once each: wall, peak RSS, peak device memory; identical files
set -u
what=${1:?check|bench|faults|rss|fixed|scale|hashrate|timeline}
. bench/device_env.sh device_lean.$what${LOGTAG:-}
W=/tmp/dl; rm -rf $W; mkdir -p $W
if [ "$what" = check ]; then
    CASES='^(apple|tiny|pseudocat)' tests/gpu/device_suite.sh "$OUT" | tail -3
    echo "== differential fuzz"
    fuzz_chunk --iters ${FUZZ_ITERS:-80} --seed ${FUZZ_SEED:-2027} | tail -2
    exit 0
fi
run() {   # BIN NAME T Q [hspz options]: one run, one line (binaries that know HSPZ_TRACE: its timeline too)
    python3 - "$@" <<'PY'
import json, os, resource, subprocess, sys, time
b, name, t, q = sys.argv[1:5]
o = f"/tmp/dl/{name}.{b}"
subprocess.call(["rm", "-rf", o])
env = dict(os.environ)
tr = b"HSPZ_TRACE" in open(f".dev/bin/{b}", "rb").read()
if tr: env["HSPZ_TRACE"] = "1"
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
s = time.time()
p = subprocess.run([f".dev/bin/{b}", "run", "-r", t, "-q", q, "-o", o, "--device", "cuda", "--quiet"] + sys.argv[5:],
                   env=env, stderr=subprocess.PIPE, text=True)
e = time.time()
rc, w = p.returncode, e - s
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
r = r1.ru_maxrss / 1048576
cpu = f", cpu user {r1.ru_utime - r0.ru_utime:.2f} sys {r1.ru_stime - r0.ru_stime:.2f} s"
try:
    m = json.load(open(f"{o}/manifest.json"))
    ts, d, f = m["time_s"], m["gpu"]["devices"][0], m["funnel"]
    extra = (f" | load {ts['load']:.3f} plan {ts['plan']:.3f} seedtable {ts['seedtable']:.3f} s, manifest wall {ts['wall']:.3f} s,"
             f" gpu busy {d['busy_s']:.2f} s, anchors {f['anchors']:.3e}, output {ts['output']:.3f} s (emit thread),"
             f" survivors {f['gate_survivors']:.3e}, accepted {f['hsps_accepted']:.3e}, written {f['segments_written']:.3e},"
             f" materialize {d['stage_event_s'].get('materialize', 0):.3f} event-s")
except Exception as x:
    extra = f" | (manifest: {x})"
if tr:   # the timeline: start latency, work done, manifest written, freed or quick exit, process end
    ph = {}
    for l in p.stderr.splitlines():
        w_ = l.split()
        if l.startswith("hspz: trace 0.0000 start"): ph["t0"] = float(w_[4])
        elif l.startswith("hspz: trace manifest:"): ph["hash"] = f"hash {w_[6]} digest {w_[11]}" + (" streamed" if "streamed" in l else "")
        elif l.startswith("hspz: trace"): ph[" ".join(w_[3:])] = float(w_[2])
    if "t0" in ph:
        st = ph["t0"] - s
        last = max(v for k, v in ph.items() if k not in ("t0", "hash"))
        extra += (f" | trace: start {st:.3f} ready {ph.get('device ready', 0):.3f} work done {ph.get('work done', 0):.3f}"
                  f" manifest {ph.get('manifest written', 0):.3f} ({ph.get('hash', '')}) last {last:.3f} exit {e - ph['t0'] - last:.3f}")
    sys.stderr.write("".join(l + "\n" for l in p.stderr.splitlines() if not l.startswith("hspz: trace")))
else:
    sys.stderr.write(p.stderr)
print(f"{name} {b:11s}: exit {rc}, wall {w:.2f} s, peak RSS {r:.2f} GiB{cpu}{extra}", flush=True)
PY
}
same() {   # NAME A B: the files, and the manifests' canonical digests and line counts
    local dg=$(for a in $2 $3; do python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["canonical_digest_sha256"], m["segment_lines"])' $W/$1.$a/manifest.json 2>&1; done | sort -u | wc -l)
    diff -r -x manifest.json $W/$1.$2 $W/$1.$3 >/dev/null && echo "$1: $3 == $2 (all files)" || echo "$1: $3 DIFFERENT from $2"
    [ "$dg" = 1 ] && echo "$1: canonical digest $3 == $2" || echo "$1: canonical digest $3 DIFFERENT from $2"
}
if [ "$what" = bench ]; then
    for name in ${INPUTS:-zymo yeast}; do
        x=()
        case $name in
            zymo) T=.dev/zy/ztritici_IPO323.fa.gz Q=.dev/zy/zpseudotritici_221.fa.gz ;;
            zymoblocks) T=.dev/zy/ztritici_IPO323.fa.gz Q=.dev/zy/zpseudotritici_221.fa.gz x=(--seq-block-size 8000000) ;;
            yeast) T=$(ls .dev/ye/*.2bit | head -1) Q=$T ;;
            plasmodium) T=$(ls .dev/pf/*falciparum* | head -1) Q=$(ls .dev/pf/*knowlesi* | head -1) ;;
            large) T=/tmp/lg/large_target.fa.gz Q=/tmp/lg/large_query.fa.gz ;;   # bench/device_large.sh stages it
        esac
        arms=(${ARMS:-hspz-before hspz})
        for i in $(seq 1 ${REPS:-3}); do   # the arms in rotating order
            for j in $(seq 0 $((${#arms[@]} - 1))); do run ${arms[$(((i + j) % ${#arms[@]}))]} $name $T $Q "${x[@]}"; done
        done
        for a in "${arms[@]:1}"; do same $name ${arms[0]} $a; done
        rm -rf $W/$name.*
    done
    exit 0
fi
if [ "$what" = faults ]; then   # failure paths and compute-sanitizer on the new device code
    AO=tests/data/apple_orange
    one() {   # NAME: run apple x orange with the environment given, classify
        local o=$W/f; rm -rf $o $o.*
        "$@" .dev/bin/hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o $o --tarball --device cuda --threads 4 2>$W/err; local rc=$?
        local nerr=$(grep -vc '^hspz: note:' $W/err) left=$(ls -d $o $o.tmp-* $o.tar.gz* 2>/dev/null | wc -l)
        if [ $rc = 1 ] && [ "$nerr" = 1 ] && [ "$left" = 0 ]; then echo "stop"
        elif [ $rc = 0 ] && [ "$left" = 2 ] && diff -r -x manifest.json $W/ref $o >/dev/null; then
            grep -q 'deduplicated on the host instead' $W/err && echo "same files, batch moved to the host" || echo "same files"
        else echo "FAIL rc=$rc nerr=$nerr left=$left"; fi
        grep -v '^hspz: funnel\|^hspz: time\|^hspz: gpu\|^hspz: note' $W/err | head -c 200 | tr '\n' ' '; echo
    }
    .dev/bin/hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o $W/ref --tarball --device cuda --threads 4 --quiet || exit 1
    bad=0 n=0
    for tile in default 64; do
        for N in $(seq 1 ${FAULT_MAX:-30}) k1 k2 k7; do
            f=gpu-alloc:$N; case $N in k*) f=gpu-kernel:${N#k} ;; esac
            if [ $tile = 64 ]; then r=$(one env HSPZ_GPU_TILE=64 HSPZ_FAULT=$f); else r=$(one env HSPZ_FAULT=$f); fi
            n=$((n+1)); case $r in FAIL*) bad=$((bad+1)) ;; esac
            echo "tile $tile $f: $r" | head -2 | tr '\n' ' '; echo
        done
    done
    echo "FAULTS: $((n-bad)) passed, $bad failed"
    [ -n "${FAULT_ONLY:-}" ] && exit 0
    CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
    echo "compute-sanitizer: ${CS:-none}"
    [ -n "$CS" ] || exit 0
    for tool in memcheck initcheck racecheck; do
        s=$EPOCHREALTIME; rm -rf $W/cs
        timeout 170 $CS --tool $tool --error-exitcode 99 .dev/bin/hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz \
            -o $W/cs --device cuda --threads 2 --quiet >$W/cs.$tool 2>&1; rc=$?
        echo "hspz $tool: exit $rc ($(awk "BEGIN{printf \"%.0f\", $EPOCHREALTIME - $s}") s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $W/cs.$tool | tail -1)"
    done
    for tool in memcheck initcheck; do   # the fuzz's queries hold 'U' (the minus-strand patch)
        s=$EPOCHREALTIME
        timeout 170 $CS --tool $tool --error-exitcode 99 .dev/bin/fuzz_chunk --iters 3 --seed 77 >$W/fz.$tool 2>&1; rc=$?
        echo "fuzz_chunk $tool: exit $rc ($(awk "BEGIN{printf \"%.0f\", $EPOCHREALTIME - $s}") s): $(grep -E 'ERROR SUMMARY' $W/fz.$tool | tail -1) $(grep '^fuzz:' $W/fz.$tool | tail -1)"
    done
    exit 0
fi
if [ "$what" = rss ]; then   # peak RSS against --threads (which memory terms are per thread)
    for name in yeast zymo; do
        case $name in
            zymo) T=.dev/zy/ztritici_IPO323.fa.gz Q=.dev/zy/zpseudotritici_221.fa.gz ;;
            yeast) T=$(ls .dev/ye/*.2bit | head -1) Q=$T ;;
        esac
        for th in 1 4 16; do run hspz $name.t$th $T $Q --threads $th; done
        HSPZ_DEVICE_DEDUP=0 run hspz $name.hostdedup $T $Q
        rm -rf $W/$name.*
    done
    exit 0
fi
traced() {   # OUTDIR: hspz on T and Q with HSPZ_TRACE, its trace lines joined by ';'
    rm -rf "$1"
    HSPZ_TRACE=1 hspz run -r $T -q $Q -o "$1" --device cuda --quiet 2>&1 | grep 'trace' | sed 's/^hspz: trace //' | tr '\n' ';'
}
if [ "$what" = timeline ]; then
    for name in ${INPUTS:-yeast zymo}; do pair $name; echo "$name: $(traced $W/tl)"; done
    rm -rf $W/tl
    exit 0
fi
if [ "$what" = hashrate ]; then
    echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, sha_ni: $(grep -c -m1 -w sha_ni /proc/cpuinfo)"
    pair plasmodium
    traced $W/pf; echo
    python3 - $W/pf <<'PY'
import glob, hashlib, os, sys, time
fs = sorted(f for f in glob.glob(sys.argv[1] + "/*.segments") if os.path.basename(f) != "all.segments")
tot = sum(os.path.getsize(f) for f in fs)
for rnd in (1, 2):   # the first round may still read from disk
    t = time.time(); h = hashlib.sha256()
    for f in fs:
        with open(f, "rb") as fp:
            while b := fp.read(1 << 20): h.update(b)
    dt = time.time() - t
    print(f"round {rnd}: sha256 of {len(fs)} segment files, {tot / 1e9:.3f} GB, one stream: {dt:.3f} s ({tot / 1e9 / dt:.2f} GB/s)")
buf = os.urandom(1 << 20) * 256
for rnd in (1, 2):
    t = time.time(); hashlib.sha256(buf).digest(); dt = time.time() - t
    print(f"round {rnd}: sha256 of 256 MiB in memory: {dt:.3f} s ({len(buf) / 1e9 / dt:.2f} GB/s)")
PY
    rm -rf $W/pf
    exit 0
fi
if [ "$what" = fixed ]; then   # where a small run's fixed costs go: start, CUDA, teardown
    AO=tests/data/apple_orange
    t() { local s=$EPOCHREALTIME; "$@" >/dev/null 2>&1; local rc=$?; awk "BEGIN{printf \"%.3f s (exit $rc)\", $EPOCHREALTIME - $s}"; }
    for i in 1 2 3; do
        echo "version: $(t .dev/bin/hspz version) | apple cpu: $(t .dev/bin/hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o $W/a$i.cpu --device cpu)" \
             "| apple cuda: $(t .dev/bin/hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o $W/a$i.cuda --device cuda)" \
             "(manifest wall $(python3 -c "import json; print(json.load(open('$W/a$i.cuda/manifest.json'))['time_s']['wall'])") s)"
    done
    exit 0
fi
for mb in ${SIZES:-300}; do
    s=$EPOCHREALTIME
    simulate_pair $mb 1 0.1 $W/p$mb || exit 1
    echo "== $mb Mbp per side: generated in $(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}") s"
    arms=(${ARMS:-hspz-before hspz})
    for b in "${arms[@]}"; do
        ( while :; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; sleep 0.2; done ) > $W/mem &
        mp=$!
        run $b p$mb $W/p$mb.a.fa $W/p$mb.b.fa
        kill $mp 2>/dev/null; wait $mp 2>/dev/null
        echo "p$mb $b: peak device memory $(sort -n $W/mem | tail -1) MiB"
    done
    [ ${#arms[@]} -gt 1 ] && same p$mb ${arms[0]} ${arms[1]}
    rm -rf $W/p$mb*
done

# device_env — sourced by the device scripts (bench/device_*.sh) on the device machine, from
# the repo root with the carry .dev/: unpacks .dev/lib.tar.xz (and .dev/bin.tar.xz if there), puts .dev/lib on
# LD_LIBRARY_PATH and .dev/bin on PATH, sends stdout and stderr to $OUT/$1.log as well, and
# prints the GPU and the commit of every hspz binary in .dev/bin; defines pair NAME, which sets
# T and Q to an input's files (zymo, yeast, plasmodium, large, pN = bench/simulate_pair's pair
# of N Mbp a side, at REPEATS, default simulate_pair's 0.36).
#   . bench/device_env.sh LOGNAME
mkdir -p .dev/lib .dev/bin && tar xJf .dev/lib.tar.xz -C .dev/lib
[ -f .dev/bin.tar.xz ] && tar xJf .dev/bin.tar.xz -C .dev/bin   # binaries packed (bench/device_pack.sh pack)
export LD_LIBRARY_PATH=$PWD/.dev/lib PATH=$PWD/.dev/bin:$PATH
exec > >(tee "$OUT/$1.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for b in .dev/bin/hspz*; do [ -x "$b" ] && echo "$(basename "$b"): $("$b" version --verbose | sed -n 2p)"; done

pair() {   # NAME: T and Q of an input (zymo/yeast/plasmodium/large carried or staged; pN generated)
    case $1 in
        zymo) T=.dev/zy/ztritici_IPO323.fa.gz Q=.dev/zy/zpseudotritici_221.fa.gz ;;
        yeast) T=$(ls .dev/ye/*.2bit | head -1) Q=$T ;;
        plasmodium) T=$(ls .dev/pf/*falciparum* | head -1) Q=$(ls .dev/pf/*knowlesi* | head -1) ;;
        large) T=/tmp/lg/large_target.fa.gz Q=/tmp/lg/large_query.fa.gz ;;   # bench/device_large.sh stages it
        p*) local g=/tmp/$1r${REPEATS:-0.36}   # REPEATS: simulate_pair's soft-masked share (0..0.9)
            [ -f $g.a.fa ] || simulate_pair ${1#p} 1 0.1 $g ${REPEATS:-0.36} >/dev/null; T=$g.a.fa Q=$g.b.fa ;;
    esac
}

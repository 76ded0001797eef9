#!/bin/bash
# device_large — the large Zymoseptoria set (105.7 x 131.2 Mbp, 65 MB of gzip) is larger than
# one device call's carry with the binaries, so it travels in two calls on a warm machine:
#   bench/device_large.sh stage    .dev/lg/* (the medium pair's two files and A26b, A48b) to /tmp/lg
#   bench/device_large.sh finish   .dev/lg/* (Zp3111, Zp431, Zp53) to /tmp/lg, then
#                                  /tmp/lg/large_target.fa.gz (IPO323, A26b, A48b) and
#                                  large_query.fa.gz (Zp221, Zp3111, Zp431, Zp53): gzip members
#                                  concatenated, as the data README says
# LG=DIR: the files come from DIR instead of .dev/lg (a second carry folder, such as .dev2/lg).
# Afterwards INPUTS=large works in bench/device_lean.sh and bench/device_gate.sh.
set -eu
case ${1:-} in stage|finish) ;; *) echo "usage: bench/device_large.sh stage|finish" >&2; exit 2 ;; esac
mkdir -p /tmp/lg
cp ${LG:-.dev/lg}/* /tmp/lg/
if [ "$1" = finish ]; then
    cd /tmp/lg
    for f in ztritici_IPO323 ztritici_A26b ztritici_A48b zpseudotritici_221 zpseudotritici_3111 zpseudotritici_431 zpseudotritici_53; do
        [ -f $f.fa.gz ] || { echo "device_large: /tmp/lg/$f.fa.gz missing (was the machine released between the calls?)"; exit 1; }
    done
    cat ztritici_IPO323.fa.gz ztritici_A26b.fa.gz ztritici_A48b.fa.gz > large_target.fa.gz
    cat zpseudotritici_221.fa.gz zpseudotritici_3111.fa.gz zpseudotritici_431.fa.gz zpseudotritici_53.fa.gz > large_query.fa.gz
fi
ls -la /tmp/lg

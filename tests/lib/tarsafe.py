"""Extract a Galaxy data package the way batched_lastz does, on any Python 3.

batched_lastz's run_lastz_tarball.py extracts with ``tarfile.extractall(filter="data")``.
``filter=`` exists from Python 3.11.4 (and 3.8.17, 3.9.17, 3.10.12) on; Debian 12's python3
is 3.11.2 without it.  There the same rules the "data" filter enforces for our members are
checked here first (relative names, no "..", only regular files and folders, no links or
devices, no set-uid/set-gid/sticky/group- or other-writable modes), so a package that passes
here also passes the real filter.
"""
import os
import stat
import tarfile


def check_data_safe(members):
    """Raise ValueError naming the first member the "data" filter would refuse or alter."""
    for m in members:
        parts = m.name.split("/")
        if m.name.startswith("/") or ".." in parts:
            raise ValueError("%s: absolute or escaping name" % m.name)
        if not (m.isfile() or m.isdir()):
            raise ValueError("%s: not a regular file or folder" % m.name)
        if m.mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWGRP | stat.S_IWOTH):
            raise ValueError("%s: mode %o is changed by the data filter" % (m.name, m.mode))


def extract_data(tgz, dest):
    """Extract TGZ into DEST with the "data" filter, or its checks where Python lacks it."""
    with tarfile.open(tgz) as t:
        if hasattr(tarfile, "data_filter"):
            t.extractall(dest, filter="data")
        else:
            members = t.getmembers()
            check_data_safe(members)
            t.extractall(dest, members=members)
    return dest

#!/usr/bin/env python3
"""manifest-check.py DIST: install by hand what the Homebrew cask and the Scoop manifest that
GoReleaser generated into DIST would install, from the archives in DIST.

Neither Homebrew nor Scoop runs here (no macOS, no Windows, no network to GitHub), so this
does their part the way they do it: for every platform the manifest names, the URL's file
name (with the cask's #{version} filled in) must be an archive in DIST, its SHA-256 must be
the one the manifest gives, and every file the manifest installs (the cask's binary, manpage
and completions; Scoop's bin) must be in that archive. The archive for this machine, if the
manifest names it, has its binary run with --version. Exit 1 with one line per fault.

What it cannot show: that `brew install --cask` and `scoop install` accept the files (their
own parsers), nor the URLs once published.
"""
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile

dist = sys.argv[1] if len(sys.argv) > 1 else "dist"
faults = []


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def members(path):
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            return set(z.namelist())
    with tarfile.open(path) as t:
        return set(m.name.lstrip("./") for m in t.getmembers())


def check(kind, url, digest, wanted):
    name = url.rsplit("/", 1)[-1]
    path = os.path.join(dist, name)
    if not os.path.isfile(path):
        faults.append(f"{kind}: {url} names {name}, which is not an archive in {dist}")
        return None
    if sha256(path) != digest:
        faults.append(f"{kind}: {name}: the manifest's sha256 {digest} is not the archive's")
    have = members(path)
    for f in wanted:
        if f not in have:
            faults.append(f"{kind}: {name} lacks {f}, which the manifest installs")
    print(f"  {kind}: {name} sha256 ok, {len(wanted)} installed files present")
    return path


here = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), "")
here_arch = {"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), "")
checked = 0

# The cask: url/sha256 pairs per platform; binary, manpage and completions stanzas.
casks_dir = os.path.join(dist, "homebrew", "Casks")
for cask in sorted(os.listdir(casks_dir)) if os.path.isdir(casks_dir) else []:
    text = open(os.path.join(casks_dir, cask)).read()
    version = re.search(r'^\s*version "([^"]+)"', text, re.M).group(1)
    wanted = re.findall(r'^\s*(?:binary|manpage|bash_completion|fish_completion|zsh_completion) "([^"]+)"', text, re.M)
    pairs = re.findall(r'url "([^"]+)"\s*\n\s*sha256 "([0-9a-f]{64})"', text)
    if not pairs:
        faults.append(f"cask {cask}: no url/sha256 pair")
    for url, digest in pairs:
        path = check("cask " + cask, url.replace("#{version}", version), digest, wanted)
        checked += 1
        if path and here and f"_{here}_{here_arch}." in path:
            with tempfile.TemporaryDirectory() as d:
                with tarfile.open(path) as t:
                    try:
                        t.extractall(d, filter="data")
                    except TypeError:  # a Python without extraction filters (before 3.11.4)
                        t.extractall(d)
                out = subprocess.run([os.path.join(d, wanted[0]), "--version"], capture_output=True, text=True)
                if out.returncode != 0:
                    faults.append(f"cask {cask}: {wanted[0]} --version exited {out.returncode}")
                else:
                    print(f"  cask {cask}: ran {wanted[0]}: {out.stdout.strip()}")

# The Scoop manifest: architecture -> url, hash, bin.
scoop_dir = os.path.join(dist, "scoop")
for manifest in sorted(os.listdir(scoop_dir)) if os.path.isdir(scoop_dir) else []:
    doc = json.load(open(os.path.join(scoop_dir, manifest)))
    for arch, entry in sorted(doc.get("architecture", {}).items()):
        bins = entry.get("bin") or []
        if isinstance(bins, str):
            bins = [bins]
        check(f"scoop {manifest} {arch}", entry["url"], entry["hash"], bins)
        checked += 1

if checked == 0:
    faults.append(f"no cask and no Scoop manifest in {dist}")
for f in faults:
    print("manifest-check: " + f, file=sys.stderr)
sys.exit(1 if faults else 0)

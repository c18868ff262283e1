#!/usr/bin/env bash
# Nine Python projects as they shipped on PyPI, as git repositories for the bug reports of
# examples/data/localize/sdist_reports.jsonl (SWE-bench-style issue texts; gold = the file a fix
# changes):
#   bash eval/scripts/sdist_repos.sh DEST
#   localize_eval PATH/examples/data/localize/sdist_reports.jsonl   (run from DEST)
# Each source distribution is downloaded from PyPI with pip, checked by sha256, unpacked and
# committed once with a fixed author and date, so every machine gets the same commit the tasks
# name; DEST/repos/<name>.git is its bare clone.
set -euo pipefail
dest=${1:?usage: sdist_repos.sh DEST}
mkdir -p "$dest/dl" "$dest/src" "$dest/repos"
dest=$(cd "$dest" && pwd)
# name  requirement  archive  sha256  commit
while read -r name req archive sum commit; do
  [ -d "$dest/repos/$name.git" ] && continue
  if [ ! -f "$dest/dl/$archive" ]; then
    python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$dest/dl" "$req"
  fi
  echo "$sum  $dest/dl/$archive" | sha256sum --check --quiet
  rm -rf "$dest/src/$name" && mkdir -p "$dest/src/$name"
  tar -xzf "$dest/dl/$archive" -C "$dest/src/$name" --strip-components=1 --no-same-owner
  (
    cd "$dest/src/$name"
    git init -q
    git add -A
    GIT_AUTHOR_NAME=sdist GIT_AUTHOR_EMAIL=sdist@localhost GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' \
    GIT_COMMITTER_NAME=sdist GIT_COMMITTER_EMAIL=sdist@localhost GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
      git -c commit.gpgsign=false commit -q -m "$req as shipped on PyPI"
    got=$(git rev-parse HEAD)
    [ "$got" = "$commit" ] || { echo "$name: commit $got, the tasks name $commit" >&2; exit 1; }
  )
  git clone -q --bare "$dest/src/$name" "$dest/repos/$name.git"
  rm -rf "$dest/src/$name"
done <<'LIST'
pytest pytest==5.4.3 pytest-5.4.3.tar.gz 7979331bfcba207414f5e1263b5a0f8f521d0f457318836a7355531ed1a4c7d8 b6165d6eb9fbb90a1e451312b673308d3dc60bdd
requests requests==2.25.1 requests-2.25.1.tar.gz 27973dd4a904a4f13b263a19c866c13b92a39ed1c964655f025f3f8d3d75b804 748cbd32593722844cf9ff80e7710a78da92e63c
flask Flask==2.0.1 Flask-2.0.1.tar.gz 1c4c257b1892aec1398784c63791cbaa43062f1f7aeb555c4da961b20ee68f55 8091d9ffeb870952208ccb7fae8d49b58a2f5b1c
xarray xarray==0.15.1 xarray-0.15.1.tar.gz 64e3138d87b641e22fe7a003c94abc685896b247b63e434505c1e6b38c91a8fb 886c029baafe2f4b8c0ab94e1ce1e7ec6d4c9717
django Django==3.1.14 Django-3.1.14.tar.gz 72a4a5a136a214c39cf016ccdd6b69e2aa08c7479c66d93f3a9b5e4bb9d8a347 b62f7a9b0b3b9ce781069589b640280ed318746a
sympy sympy==1.7.1 sympy-1.7.1.tar.gz a3de9261e97535b83bb8607b0da2c7d03126650fafea2b2789657b229c246b2e 4749187a3ec99fd6ae234cfb6385822cd76a7b5f
sphinx Sphinx==3.5.4 Sphinx-3.5.4.tar.gz 19010b7b9fa0dc7756a6e105b2aacd3a80f798af3c25c273be64d7beeb482cb1 83ba7e01124d368262dffc1c92c4466c75c1aff3
pylint pylint==2.8.3 pylint-2.8.3.tar.gz 0a049c5d47b629d9070c3932d13bff482b12119b6a241a93bc460b0be16953c8 fc7b51d6421bb36187f8607acdfd61a510bcf689
seaborn seaborn==0.11.1 seaborn-0.11.1.tar.gz 44e78eaed937c5a87fc7a892c329a7cc091060b67ebd1d0d306b446a74ba01ad 520869ecd54feb2d0e179f27f999b696a8d9c189
LIST
ls "$dest/repos"

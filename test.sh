#!/usr/bin/env bash
# The test command of README.md: installs what the tests run generated code
# with (TypeScript's tsc from npm, kotlinc from Debian's packages; see
# export/testdata/setup.sh) and what the command's tests drive (Chromium
# for the report, zsh and fish for completion; see testdata/setup.sh),
# then runs every Go test. The setup waits for apt's lock when another apt
# holds it; the tests' timeout holds on a loaded 2-core machine (the whole
# run takes about 2 minutes on a quiet one, the root package's CLI tests
# over 3 under load, where go test's default of 10 minutes a package was
# once passed).
set -euo pipefail
cd "$(dirname "$0")"
sh export/testdata/setup.sh
sh testdata/setup.sh
go test -timeout 40m ./...

#!/usr/bin/env bash
# The test command of README.md: installs what the tests run generated code
# with (TypeScript's tsc from npm, kotlinc from Debian's packages; see
# export/testdata/setup.sh) and what the command's tests drive (Chromium
# for the report, zsh and fish for completion; see testdata/setup.sh),
# then runs every Go test.
set -euo pipefail
cd "$(dirname "$0")"
sh export/testdata/setup.sh
sh testdata/setup.sh
go test ./...

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs whichever build dependencies of costmodel are missing (Debian packages only).
# As root it runs apt-get; otherwise it prints the exact command to run and exits non-zero.
set -euo pipefail

packages=(cmake g++ make libeigen3-dev libboost-program-options-dev libyaml-cpp-dev doctest-dev libbenchmark-dev
  clang-format clang-tidy)
# The Python module and its tests (make test runs pytest and the notebook): pybind11 and Debian's python3-*
# packages, which serve Debian's own /usr/bin/python3. `make plan` builds the CLI only and skips them.
if [ "${COSTMODEL_WITH_PYTHON:-1}" = 1 ]; then
  packages+=(pybind11-dev python3-dev python3-pandas python3-dask python3-distributed python3-yaml python3-pytest
    python3-matplotlib jupyter-nbconvert python3-ipykernel python3-venv python3-pip python3-setuptools python3-wheel)
fi
if [ "${COSTMODEL_WITH_CLANG:-0}" = 1 ]; then
  packages+=(clang libclang-rt-dev)
fi
# make check-browser: Debian's chromium, and Node.js with npm where no node is on PATH (playwright-core 1.64
# needs Node.js 20; Debian 12's nodejs is 18, so a newer node already installed is kept).
if [ "${COSTMODEL_WITH_BROWSER:-0}" = 1 ]; then
  packages+=(chromium)
  command -v node >/dev/null 2>&1 || packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

command="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "costmodel: missing packages: ${missing[*]}" >&2
  echo "costmodel: run as root:  apt-get update && $command" >&2
  exit 1
fi
echo "costmodel: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
$command >/dev/null

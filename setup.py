# SPDX-License-Identifier: Apache-2.0
"""Builds the Python module's compiled part (target costmodel_python, python/CMakeLists.txt) with CMake and
puts it, the catalogs (data/, models/) and the pure-Python package into the wheel. Metadata: pyproject.toml.

COSTMODEL_BUILD_DIR=DIR takes the module already built in that CMake build folder (make python-install builds
it there first); otherwise a Release build is configured in build/python-wheel. setuptools' scratch goes to
$COSTMODEL_SETUP_SCRATCH (default build/python-setuptools).
"""

import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    """MAJOR.MINOR.PATCH from costmodel/version.hpp, where the version is written once."""
    with open(os.path.join(ROOT, "libcostmodel", "include", "costmodel", "version.hpp"), encoding="utf-8") as f:
        text = f.read()
    return ".".join(re.search(rf"#define COSTMODEL_VERSION_{part} ([0-9]+)", text).group(1)
                    for part in ("MAJOR", "MINOR", "PATCH"))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        given = os.environ.get("COSTMODEL_BUILD_DIR")  # built there by the caller: taken as it is
        build = given or os.path.join(ROOT, "build", "python-wheel")
        if not given:
            if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
                subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                                       f"-DPython3_EXECUTABLE={sys.executable}", "-DCOSTMODEL_BUILD_TESTS=OFF",
                                       "-DCOSTMODEL_BUILD_BENCHMARKS=OFF", "-DCOSTMODEL_BUILD_TOOLS=OFF",
                                       "-DCOSTMODEL_BUILD_EXAMPLES=OFF", "-DCOSTMODEL_INSTALL=OFF"])
            jobs = os.environ.get("JOBS", str(os.cpu_count() or 2))
            subprocess.check_call(["cmake", "--build", build, "-j" + jobs, "--target", "costmodel_python"])
        built = glob.glob(os.path.join(build, "python", "costmodel", "_costmodel*.so"))
        if len(built) != 1:
            raise RuntimeError(f"costmodel: expected one _costmodel*.so in {build}/python/costmodel, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


class BuildPy(build_py):
    """The pure-Python package, plus the catalogs under costmodel/share/costmodel (found at import)."""

    def run(self):
        super().run()
        share = os.path.join(self.build_lib, "costmodel", "share", "costmodel")
        for folder in ("data", "models"):
            os.makedirs(os.path.join(share, folder), exist_ok=True)
            for path in glob.glob(os.path.join(ROOT, folder, "*.yaml")):
                shutil.copy(path, os.path.join(share, folder))


# setuptools' own scratch (build/lib..., *.egg-info) goes under one folder outside the sources.
SCRATCH = os.environ.get("COSTMODEL_SETUP_SCRATCH") or os.path.join(ROOT, "build", "python-setuptools")
os.makedirs(SCRATCH, exist_ok=True)

setup(version=version(), ext_modules=[CMakeExtension("costmodel._costmodel")],
      cmdclass={"build_ext": CMakeBuild, "build_py": BuildPy},
      options={"build": {"build_base": SCRATCH}, "egg_info": {"egg_base": SCRATCH}})

// SPDX-License-Identifier: Apache-2.0
// costmodel._costmodel: the compiled part of the Python module. It runs the CLI's commands in process
// (apps/costmodel/cli/run.hpp) with their output captured, so that every Python function answers exactly
// as `costmodel COMMAND --format json` does, with the same error lines; costmodel/__init__.py turns the
// JSON into DataFrames and the error lines into costmodel.Error.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/run.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/version.hpp"

namespace py = pybind11;

namespace {

/// `costmodel args...`: (exit code, stdout, stderr). The interpreter lock is released while it runs, so
/// that Python threads (and Dask's threaded workers) run commands side by side.
py::tuple run_cli(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  int code = 0;
  {
    const py::gil_scoped_release unlocked;
    code = costmodel::cli::run(args, out, err);
  }
  return py::make_tuple(code, out.str(), err.str());
}

}  // namespace

PYBIND11_MODULE(_costmodel, module) {
  module.doc() = "costmodel's compiled core: the CLI's commands run in process (use the costmodel package)";
  module.def("run", &run_cli, py::arg("args"),
             "Runs `costmodel ARGS...`; returns (exit_code, stdout, stderr) as the CLI would.");
  module.def(
      "register_data_dir",
      [](const std::string& path) { costmodel::register_package_data_dir(path.c_str()); }, py::arg("path"),
      "Where the catalogs (data/, models/) are when neither $COSTMODEL_DATA_DIR nor an installed prefix "
      "says.");
  module.def("data_dir", &costmodel::default_data_root, "The folder the catalogs are read from.");
  module.attr("__version__") = std::string(costmodel::version());
}

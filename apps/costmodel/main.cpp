// SPDX-License-Identifier: Apache-2.0
// costmodel: `costmodel <command> [options]` (cli/run.hpp), on the process's stdout and stderr.

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/run.hpp"

int main(int argc, char** argv) {
  try {
    return costmodel::cli::run(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
  } catch (const std::exception& error) {
    std::cerr << "costmodel: internal error: " << error.what() << '\n';
    return 1;
  }
}

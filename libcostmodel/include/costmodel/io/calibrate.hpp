// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deprecated forwarding header, kept for one release (see CHANGELOG.md): include
// <costmodel/analysis/calibrate.hpp>, <costmodel/io/nccl_tests.hpp> and <costmodel/io/cluster_writer.hpp>.
#include "costmodel/analysis/calibrate.hpp"
#include "costmodel/io/cluster_writer.hpp"
#include "costmodel/io/nccl_tests.hpp"

// SPDX-License-Identifier: Apache-2.0
#pragma once
// costmodel: every public header at once. A program can build a ClusterSpec and ModelSpec in code (or load
// them), call estimate(), run plan(), size a topology, cost one collective and render the results:
//   #include "costmodel/error.hpp"
#include "costmodel/units.hpp"
#include "costmodel/version.hpp"

#include "costmodel/spec/catalog.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/collective.hpp"
#include "costmodel/spec/economics.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/spec/intervals.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/names.hpp"
#include "costmodel/spec/nccl_tuner.hpp"
#include "costmodel/spec/stack.hpp"
#include "costmodel/spec/strategy.hpp"
#include "costmodel/spec/training.hpp"

#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"

#include "costmodel/estimate/economics.hpp"
#include "costmodel/estimate/goodput.hpp"
#include "costmodel/estimate/inputs.hpp"
#include "costmodel/estimate/memory.hpp"
#include "costmodel/estimate/step.hpp"

#include "costmodel/search/objective.hpp"
#include "costmodel/search/planner.hpp"
#include "costmodel/search/space.hpp"

#include "costmodel/analysis/calibrate.hpp"
#include "costmodel/analysis/fabrics.hpp"
#include "costmodel/analysis/scenario.hpp"
#include "costmodel/analysis/validate.hpp"

#include "costmodel/io/catalog.hpp"
#include "costmodel/io/cluster_writer.hpp"
#include "costmodel/io/hf_config.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/io/nccl_tests.hpp"
#include "costmodel/io/runs.hpp"
#include "costmodel/io/scenario.hpp"

#include "costmodel/report/configuration.hpp"
#include "costmodel/report/html.hpp"
#include "costmodel/report/json.hpp"
#include "costmodel/report/launch.hpp"
#include "costmodel/report/plan.hpp"
#include "costmodel/report/table.hpp"

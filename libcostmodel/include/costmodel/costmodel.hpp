#pragma once
// costmodel: every public header at once. A program can build a ClusterSpec and ModelSpec in code (or load
// them), call estimate(), run plan(), size a topology, cost one collective and render the results:
//   #include <costmodel/costmodel.hpp>
//   target_link_libraries(app PRIVATE costmodel::costmodel)     # after find_package(costmodel REQUIRED)
// See docs/api.md. No header pulls in yaml-cpp, Boost or Eigen.

#include "costmodel/error.hpp"
#include "costmodel/units.hpp"
#include "costmodel/version.hpp"

#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/strategy.hpp"

#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"

#include "costmodel/estimate/compute.hpp"
#include "costmodel/estimate/memory.hpp"
#include "costmodel/estimate/step.hpp"

#include "costmodel/search/objective.hpp"
#include "costmodel/search/planner.hpp"
#include "costmodel/search/space.hpp"

#include "costmodel/io/calibrate.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/io/report.hpp"
#include "costmodel/io/results.hpp"
#include "costmodel/io/runs.hpp"
#include "costmodel/io/scenario.hpp"
#include "costmodel/io/svg.hpp"
#include "costmodel/io/validate.hpp"

// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deprecated forwarding header, kept for one release (see CHANGELOG.md): include <costmodel/report/svg.hpp>
// instead.
#include "costmodel/report/svg.hpp"

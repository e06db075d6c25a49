// SPDX-License-Identifier: Apache-2.0
#pragma once
// A small SVG chart writer of our own (no dependency): line charts over categories (a metric against a swept
// value, one line per variant) and scatter charts (the planner's Pareto front, marker size as a third
// quantity), each with a title, axes with ticks and units, grid lines and a legend. Output is standalone
// SVG 1.1, well-formed XML, readable by browsers and rsvg-convert.

#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/search/planner.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One line of a LineChart: a y value per category; a non-finite value leaves a gap.
struct LineSeries {
  std::string name;
  std::vector<double> y;
  bool right = false;  ///< plotted against the right-hand axis (LineChart::y2_label), as a dashed line
};

/// Lines over evenly spaced categories (the swept values, in sweep order).
struct LineChart {
  std::string title;
  std::string subtitle;  ///< one smaller line under the title; empty for none
  std::string x_label;
  std::vector<std::string> categories;
  std::string y_label;  ///< with its unit: "step time (s)"
  bool log_y = false;   ///< logarithmic y axis (every plotted value must then be positive)
  bool bars = false;    ///< grouped bars instead of lines (categories that are not an ordered quantity)
  /// The right-hand axis's label, with its unit, for series with `right` set (always drawn as lines).
  std::string y2_label;
  bool log_y2 = false;
  std::vector<LineSeries> series;
};

/// One point of a ScatterChart; `size` sets the marker's area relative to the chart's largest.
struct ScatterPoint {
  double x = 0;
  double y = 0;
  double size = 1;
};

struct ScatterSeries {
  std::string name;
  std::vector<ScatterPoint> points;
  bool connect = false;  ///< join the points, sorted by x, with a step line (a Pareto front)
  bool markers = true;   ///< draw a marker per point (false: the line only)
  std::string color;     ///< CSS colour; empty: the next colour of the palette
};

struct ScatterChart {
  std::string title;
  std::string subtitle;
  std::string x_label;     ///< with unit
  std::string y_label;     ///< with unit
  std::string size_label;  ///< what marker size means: "switches"; empty for fixed-size markers
  bool log_x = false;
  bool log_y = false;
  std::vector<ScatterSeries> series;
};

/// The chart as an SVG document.
[[nodiscard]] std::string render_svg(const LineChart& chart);
[[nodiscard]] std::string render_svg(const ScatterChart& chart);

/// Tick values covering [lo, hi] at 1, 2 or 5 x 10^k steps, about `target` of them (Heckbert, "Nice numbers
/// for graph labels", Graphics Gems 1990). On a log axis: the powers of ten (and 2, 5 x them when few).
[[nodiscard]] std::vector<double> nice_ticks(double lo, double hi, int target = 6);
[[nodiscard]] std::vector<double> log_ticks(double lo, double hi);

/// `text` with &, <, >, " and ' escaped for XML text and attributes.
[[nodiscard]] std::string xml_escape(std::string_view text);

/// The Pareto front of a plan as a scatter chart: the first axis against the second (time: wall-clock seconds
/// per step; costs in M$ to train with a token budget, else $ per step), marker area proportional to the
/// third, one series per fabric, the rest of the top configurations in grey.
[[nodiscard]] ScatterChart pareto_chart(const PlanResult& result, const std::string& title,
                                        const ParetoAxes& axes = kDefaultParetoAxes);

}  // namespace costmodel::inline COSTMODEL_ABI

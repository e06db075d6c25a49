// SPDX-License-Identifier: Apache-2.0
#include "report/svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "costmodel/report/table.hpp"
#include "costmodel/search/objective.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

constexpr double kWidth = 960;
constexpr double kHeight = 560;
constexpr double kLeft = 90;
constexpr double kTop = 70;
constexpr double kBottom = 80;
constexpr double kLegendWidth = 250;
constexpr double kPlotRight = kWidth - kLegendWidth - 20;
constexpr double kPlotBottom = kHeight - kBottom;
constexpr double kCharWidth = 7.0;  // average advance of a 13 px sans-serif character

// Tableau 10: distinguishable, and readable in grey scale thanks to the dash patterns cycled beside it.
constexpr std::array<const char*, 10> kColors{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                              "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr std::array<const char*, 3> kDashes{"", "6 4", "2 3"};

std::string num(double value) {
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.2f", value);
  return buffer.data();
}

const char* color(size_t index) {
  return kColors[index % kColors.size()];
}
const char* dash(size_t index) {
  return kDashes[(index / kColors.size()) % kDashes.size()];
}

/// A linear or logarithmic map from data to pixels.
struct Axis {
  double lo = 0;
  double hi = 1;
  bool log = false;
  double from = 0;  // pixel of lo
  double to = 1;    // pixel of hi

  [[nodiscard]] double operator()(double v) const {
    const double a = log ? std::log10(lo) : lo;
    const double b = log ? std::log10(hi) : hi;
    const double x = log ? std::log10(v) : v;
    return from + (to - from) * (b > a ? (x - a) / (b - a) : 0.5);
  }
};

/// [lo, hi] of the finite (and, on a log axis, positive) values, widened to nice ticks; the ticks. A bar's
/// length is its value, so a linear axis of bars (`from_zero`) always starts at zero.
std::vector<double> fit_axis(std::vector<double> values, bool log, Axis& axis, bool from_zero = false) {
  values.erase(std::remove_if(values.begin(), values.end(),
                              [log](double v) { return !std::isfinite(v) || (log && v <= 0); }),
               values.end());
  double lo = values.empty() ? (log ? 1.0 : 0.0) : *std::min_element(values.begin(), values.end());
  double hi = values.empty() ? (log ? 10.0 : 1.0) : *std::max_element(values.begin(), values.end());
  if (log) {
    if (hi / lo < 1.5) {
      lo /= 1.25;
      hi *= 1.25;
    }
    lo /= 1.08;
    hi *= 1.08;
    auto ticks = log_ticks(lo, hi);
    axis.lo = std::min(lo, ticks.front());
    axis.hi = std::max(hi, ticks.back());
    axis.log = true;
    return ticks;
  }
  if (lo > 0 && (from_zero || lo < 0.5 * hi)) lo = 0;  // start at zero unless that squashes lines' data
  // A margin, so that no marker sits on the frame.
  const double margin = 0.05 * (hi - lo);
  if (lo != 0) lo -= margin;
  hi += margin;
  if (hi == lo) {
    const double pad = lo == 0 ? 1.0 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  auto ticks = nice_ticks(lo, hi);
  axis.lo = ticks.front();
  axis.hi = ticks.back();
  return ticks;
}

class Svg {
 public:
  /// A picture `width` wide: kWidth with a legend, narrower without.
  explicit Svg(double width = kWidth) {
    out_ << R"(<?xml version="1.0" encoding="UTF-8"?>)" << '\n'
         << R"(<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width=")" << width << R"(" height=")"
         << kHeight << R"(" viewBox="0 0 )" << width << ' ' << kHeight
         << R"(" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="13">)" << '\n'
         << R"(<rect x="0" y="0" width=")" << width << R"(" height=")" << kHeight << R"(" fill="white"/>)"
         << '\n';
  }

  void text(double x, double y, std::string_view content, const std::string& attributes = {}) {
    out_ << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\"" << (attributes.empty() ? "" : " ")
         << attributes << '>' << xml_escape(content) << "</text>\n";
  }
  void line(double x1, double y1, double x2, double y2, const std::string& attributes) {
    out_ << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\""
         << num(y2) << "\" " << attributes << "/>\n";
  }
  void raw(const std::string& element) { out_ << element << '\n'; }
  void open_group(const std::string& attributes) { out_ << "<g " << attributes << ">\n"; }
  void close_group() { out_ << "</g>\n"; }

  [[nodiscard]] std::string finish() {
    out_ << "</svg>\n";
    return out_.str();
  }

 private:
  std::ostringstream out_;
};

void title_block(Svg& svg, const std::string& title, const std::string& subtitle, double width = kWidth) {
  svg.text(width / 2, 28, title, R"(text-anchor="middle" font-size="18" font-weight="bold")");
  if (!subtitle.empty())
    svg.text(width / 2, 48, subtitle, R"(text-anchor="middle" font-size="12" fill="#555")");
}

void plot_frame(Svg& svg) {
  svg.raw("<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kPlotRight - kLeft) +
          "\" height=\"" + num(kPlotBottom - kTop) + R"(" fill="none" stroke="#333"/>)");
}

std::string tick_label(double v) {
  return format_number(v, 3);
}

void y_axis(Svg& svg, const Axis& axis, const std::vector<double>& ticks, const std::string& label) {
  svg.open_group(R"(class="y-axis")");
  for (const double t : ticks) {
    const double y = axis(t);
    svg.line(kLeft, y, kPlotRight, y, R"(stroke="#ddd")");
    svg.line(kLeft - 5, y, kLeft, y, R"(stroke="#333")");
    svg.text(kLeft - 8, y + 4, tick_label(t), R"(text-anchor="end")");
  }
  const double middle = (kTop + kPlotBottom) / 2;
  svg.text(22, middle, label,
           "text-anchor=\"middle\" transform=\"rotate(-90 22 " + num(middle) + ")\" font-size=\"14\"");
  svg.close_group();
}

void x_label(Svg& svg, const std::string& label) {
  svg.text((kLeft + kPlotRight) / 2, kHeight - 22, label, R"(text-anchor="middle" font-size="14")");
}

/// The legend, right of the plot; `marker` draws the swatch of entry i at (x, y).
template <typename Marker>
void legend(Svg& svg, const std::vector<std::string>& names, Marker marker, const std::string& note = {},
            double x = kPlotRight + 20) {
  // Shrink the spacing for many entries so that they stay inside the picture.
  const double spacing = std::min(20.0, (kPlotBottom - kTop - 30) / std::max<double>(1.0, names.size()));
  const double font = std::clamp(spacing - 6, 9.0, 13.0);
  svg.open_group(R"(class="legend")");
  double y = kTop + 8;
  for (size_t i = 0; i < names.size(); ++i) {
    marker(x, y, i);
    svg.text(x + 34, y + 4, names[i], "font-size=\"" + num(font) + "\"");
    y += spacing;
  }
  if (!note.empty()) svg.text(x, y + 14, note, R"(font-size="11" fill="#555")");
  svg.close_group();
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even escaped.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
    }
  }
  return out;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) return {lo};
  const auto nice = [](double x, bool round) {
    const double exponent = std::floor(std::log10(x));
    const double fraction = x / std::pow(10.0, exponent);
    double f = 10;
    if (round) {
      f = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10;
    } else {
      f = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
    }
    return f * std::pow(10.0, exponent);
  };
  const double range = nice(hi - lo, false);
  const double step = nice(range / std::max(1, target - 1), true);
  std::vector<double> ticks;
  const double first = std::floor(lo / step) * step;
  const double last = std::ceil(hi / step) * step;
  for (double t = first; t <= last + step * 0.5; t += step)
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi) {
  const int first = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int last = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  std::vector<double> ticks;
  const bool fine = last - first <= 2;
  for (int e = first; e <= last; ++e) {
    const double p = std::pow(10.0, e);
    ticks.push_back(p);
    if (fine && e < last) {
      ticks.push_back(2 * p);
      ticks.push_back(5 * p);
    }
  }
  // Drop the fine ticks outside the data, keeping one decade mark either side.
  std::vector<double> kept;
  for (size_t i = 0; i < ticks.size(); ++i) {
    const bool below = i + 1 < ticks.size() && ticks[i + 1] <= lo;
    const bool above = i > 0 && ticks[i - 1] >= hi;
    if (!below && !above) kept.push_back(ticks[i]);
  }
  return kept;
}

std::string render_svg(const LineChart& chart) {
  // One series of bars needs no legend: the y label names it, and the picture ends after the plot.
  const bool no_legend = chart.series.size() == 1 && chart.bars;
  const double width = no_legend ? kPlotRight + 30 : kWidth;
  Svg svg(width);
  title_block(svg, chart.title, chart.subtitle, width);
  std::vector<double> values;
  std::vector<double> right_values;
  for (const auto& s : chart.series)
    (s.right ? right_values : values).insert((s.right ? right_values : values).end(), s.y.begin(), s.y.end());
  const bool dual =
      std::any_of(chart.series.begin(), chart.series.end(), [](const auto& s) { return s.right; });
  Axis y{0, 1, false, kPlotBottom, kTop};
  const auto ticks = fit_axis(values, chart.log_y, y, chart.bars);
  y_axis(svg, y, ticks, chart.y_label);
  Axis y2{0, 1, false, kPlotBottom, kTop};
  if (dual) {
    const auto right_ticks = fit_axis(right_values, chart.log_y2, y2);
    svg.open_group(R"(class="y2-axis")");
    for (const double t : right_ticks) {
      svg.line(kPlotRight, y2(t), kPlotRight + 5, y2(t), R"(stroke="#333")");
      svg.text(kPlotRight + 8, y2(t) + 4, tick_label(t), R"(text-anchor="start")");
    }
    const double middle = (kTop + kPlotBottom) / 2;
    const double x = kPlotRight + 62;
    svg.text(x, middle, chart.y2_label,
             "text-anchor=\"middle\" transform=\"rotate(90 " + num(x) + " " + num(middle) +
                 ")\" font-size=\"14\"");
    svg.close_group();
  }

  const size_t n = std::max<size_t>(1, chart.categories.size());
  const double band = (kPlotRight - kLeft) / static_cast<double>(n);
  const auto x_of = [&](size_t i) { return kLeft + band * (static_cast<double>(i) + 0.5); };
  // Labels wider than their band are slanted so that neighbours do not overlap.
  size_t longest = 0;
  for (const auto& c : chart.categories) longest = std::max(longest, c.size());
  const bool slanted = static_cast<double>(longest) * kCharWidth > band * 0.95;
  svg.open_group(R"(class="x-axis")");
  for (size_t i = 0; i < chart.categories.size(); ++i) {
    svg.line(x_of(i), kPlotBottom, x_of(i), kPlotBottom + 5, R"(stroke="#333")");
    if (slanted) {
      const double ty = kPlotBottom + 16;
      svg.text(x_of(i) + 4, ty, chart.categories[i],
               "text-anchor=\"end\" font-size=\"12\" transform=\"rotate(-25 " + num(x_of(i) + 4) + " " +
                   num(ty) + ")\"");
    } else {
      svg.text(x_of(i), kPlotBottom + 20, chart.categories[i], R"(text-anchor="middle")");
    }
  }
  svg.close_group();
  if (!slanted) x_label(svg, chart.x_label);
  plot_frame(svg);

  const auto left_series = static_cast<size_t>(
      std::count_if(chart.series.begin(), chart.series.end(), [](const auto& s) { return !s.right; }));
  const double bar_width = band * 0.8 / static_cast<double>(std::max<size_t>(1, left_series));
  for (size_t k = 0; k < chart.series.size() && chart.bars; ++k) {
    const auto& s = chart.series[k];
    if (s.right) continue;
    svg.open_group("class=\"series\" data-name=\"" + xml_escape(s.name) + "\"");
    const double floor = chart.log_y ? kPlotBottom : y(std::max(0.0, y.lo));
    for (size_t i = 0; i < s.y.size() && i < chart.categories.size(); ++i) {
      const double v = s.y[i];
      if (!std::isfinite(v) || (chart.log_y && v <= 0)) continue;
      const double left = x_of(i) - band * 0.4 + bar_width * static_cast<double>(k);
      const double top = std::min(y(v), floor);
      svg.raw("<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(bar_width * 0.92) +
              "\" height=\"" + num(std::fabs(floor - y(v))) + "\" fill=\"" + color(k) + "\"><title>" +
              xml_escape(s.name + ", " + chart.categories[i] + ": " + format_number(v, 4)) +
              "</title></rect>");
      svg.text(left + bar_width * 0.46, top - 4, format_number(v, 3),
               R"(text-anchor="middle" font-size="10")");
    }
    svg.close_group();
  }
  for (size_t k = 0; k < chart.series.size(); ++k) {
    const auto& s = chart.series[k];
    if (chart.bars && !s.right) continue;
    const Axis& axis = s.right ? y2 : y;
    const bool log = s.right ? chart.log_y2 : chart.log_y;
    svg.open_group("class=\"series\" data-name=\"" + xml_escape(s.name) + "\"");
    std::string path;
    bool pen_down = false;
    for (size_t i = 0; i < s.y.size() && i < chart.categories.size(); ++i) {
      const double v = s.y[i];
      if (!std::isfinite(v) || (log && v <= 0)) {
        pen_down = false;
        continue;
      }
      path += (pen_down ? " L " : " M ") + num(x_of(i)) + ' ' + num(axis(v));
      pen_down = true;
    }
    if (!path.empty()) {
      std::string dashes = s.right ? "6 4" : dash(k);
      svg.raw("<path d=\"" + path.substr(1) + "\" fill=\"none\" stroke=\"" + color(k) +
              "\" stroke-width=\"2\"" + (dashes.empty() ? "" : " stroke-dasharray=\"" + dashes + "\"") +
              "/>");
    }
    for (size_t i = 0; i < s.y.size() && i < chart.categories.size(); ++i) {
      const double v = s.y[i];
      if (!std::isfinite(v) || (log && v <= 0)) continue;
      svg.raw("<circle cx=\"" + num(x_of(i)) + "\" cy=\"" + num(axis(v)) + "\" r=\"3.5\" fill=\"" + color(k) +
              "\"><title>" + xml_escape(s.name + ", " + chart.categories[i] + ": " + format_number(v, 4)) +
              "</title></circle>");
    }
    svg.close_group();
  }
  std::vector<std::string> names;
  for (const auto& s : chart.series) names.push_back(s.name);
  if (no_legend) return svg.finish();
  legend(
      svg, names,
      [&](double x, double yy, size_t i) {
        const bool right = chart.series[i].right;
        if (chart.bars && !right) {
          svg.raw("<rect x=\"" + num(x + 4) + "\" y=\"" + num(yy - 6) +
                  "\" width=\"18\" height=\"12\" fill=\"" + color(i) + "\"/>");
          return;
        }
        std::string dashes = right ? "6 4" : dash(i);
        svg.line(x, yy, x + 26, yy,
                 std::string("stroke=\"") + color(i) + "\" stroke-width=\"2\"" +
                     (dashes.empty() ? "" : " stroke-dasharray=\"" + dashes + "\""));
        svg.raw("<circle cx=\"" + num(x + 13) + "\" cy=\"" + num(yy) + "\" r=\"3\" fill=\"" + color(i) +
                "\"/>");
      },
      dual ? "dashed: right-hand axis" : "", dual ? kPlotRight + 80 : kPlotRight + 20);
  return svg.finish();
}

std::string render_svg(const ScatterChart& chart) {
  Svg svg;
  title_block(svg, chart.title, chart.subtitle);
  std::vector<double> xs;
  std::vector<double> ys;
  double largest = 0;
  for (const auto& s : chart.series) {
    for (const auto& p : s.points) {
      xs.push_back(p.x);
      ys.push_back(p.y);
      if (std::isfinite(p.size)) largest = std::max(largest, p.size);
    }
  }
  Axis x{0, 1, false, kLeft, kPlotRight};
  Axis y{0, 1, false, kPlotBottom, kTop};
  const auto x_ticks = fit_axis(xs, chart.log_x, x);
  const auto y_ticks = fit_axis(ys, chart.log_y, y);
  y_axis(svg, y, y_ticks, chart.y_label);
  svg.open_group(R"(class="x-axis")");
  for (const double t : x_ticks) {
    svg.line(x(t), kTop, x(t), kPlotBottom, R"(stroke="#ddd")");
    svg.line(x(t), kPlotBottom, x(t), kPlotBottom + 5, R"(stroke="#333")");
    svg.text(x(t), kPlotBottom + 20, tick_label(t), R"(text-anchor="middle")");
  }
  svg.close_group();
  x_label(svg, chart.x_label);
  plot_frame(svg);

  // Marker area proportional to size: radius 3..14 px.
  const auto radius = [&](double size) {
    if (chart.size_label.empty() || !(largest > 0) || !std::isfinite(size) || size <= 0) return 5.0;
    return 3.0 + 11.0 * std::sqrt(size / largest);
  };
  const auto visible = [&](const ScatterPoint& p) {
    return std::isfinite(p.x) && std::isfinite(p.y) && (!chart.log_x || p.x > 0) && (!chart.log_y || p.y > 0);
  };
  std::vector<std::string> colors;
  for (size_t k = 0, palette = 0; k < chart.series.size(); ++k) {
    colors.push_back(chart.series[k].color.empty() ? color(palette++) : chart.series[k].color);
  }
  for (size_t k = 0; k < chart.series.size(); ++k) {
    const auto& s = chart.series[k];
    const std::string& c = colors[k];
    svg.open_group("class=\"series\" data-name=\"" + xml_escape(s.name) + "\"");
    if (s.connect) {
      std::vector<ScatterPoint> sorted;
      for (const auto& p : s.points) {
        if (visible(p)) sorted.push_back(p);
      }
      std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
      std::string path;
      for (size_t i = 0; i < sorted.size(); ++i) {
        // A staircase: the front is attainable only at its points, not along a diagonal between them.
        if (i > 0) path += " L " + num(x(sorted[i].x)) + ' ' + num(y(sorted[i - 1].y));
        path += (i == 0 ? "M " : " L ") + num(x(sorted[i].x)) + ' ' + num(y(sorted[i].y));
      }
      if (!path.empty()) {
        svg.raw("<path d=\"" + path + "\" fill=\"none\" stroke=\"" + c +
                "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>");
      }
    }
    for (const auto& p : s.points) {
      if (!visible(p) || !s.markers) continue;
      svg.raw(
          "<circle cx=\"" + num(x(p.x)) + "\" cy=\"" + num(y(p.y)) + "\" r=\"" + num(radius(p.size)) +
          "\" fill=\"" + c + "\" fill-opacity=\"0.55\" stroke=\"" + c + "\"><title>" +
          xml_escape(
              s.name + ": " + format_number(p.x, 4) + ", " + format_number(p.y, 4) +
              (chart.size_label.empty() ? "" : ", " + chart.size_label + " " + format_number(p.size, 4))) +
          "</title></circle>");
    }
    svg.close_group();
  }
  std::vector<std::string> names;
  for (const auto& s : chart.series) names.push_back(s.name);
  const std::string note =
      chart.size_label.empty() || !(largest > 0)
          ? std::string()
          : "marker area: " + chart.size_label + " (largest " + format_number(largest, 4) + ")";
  legend(
      svg, names,
      [&](double lx, double ly, size_t i) {
        svg.raw("<circle cx=\"" + num(lx + 13) + "\" cy=\"" + num(ly) + "\" r=\"6\" fill=\"" + colors[i] +
                "\" fill-opacity=\"0.55\" stroke=\"" + colors[i] + "\"/>");
      },
      note);
  return svg.finish();
}

namespace {

/// An axis of the Pareto chart: its label and the scale of its values.
struct ParetoAxis {
  std::string label;
  double scale = 1;
};

ParetoAxis pareto_axis(Objective objective, bool budget) {
  switch (objective) {
    case Objective::kTime:
      return {"wall-clock time per step (s)", 1};
    case Objective::kCost:
      return budget ? ParetoAxis{"cost to train (M$)", 1e6} : ParetoAxis{"cost per step ($)", 1};
    case Objective::kCapex:
      return {"capex (M$)", 1e6};
    case Objective::kTco:
      return budget ? ParetoAxis{"TCO of the run (M$)", 1e6} : ParetoAxis{"TCO per step ($)", 1};
    case Objective::kSwitches:
      return {"switches", 1};
    case Objective::kPower:
      return {"power (MW)", 1e6};
  }
  return {"", 1};
}

}  // namespace

ScatterChart pareto_chart(const PlanResult& result, const std::string& title, const ParetoAxes& axes) {
  ScatterChart chart;
  chart.title = title;
  const bool budget = !result.pareto.empty() && result.pareto.front().training_time.has_value();
  const ParetoAxis x = pareto_axis(axes[0], budget);
  const ParetoAxis y = pareto_axis(axes[1], budget);
  const ParetoAxis size = pareto_axis(axes[2], budget);
  chart.x_label = x.label;
  chart.y_label = y.label;
  chart.size_label = size.label;
  chart.subtitle = std::to_string(result.pareto.size()) + " configurations on the Pareto front of (" +
                   to_string(axes) + "); " + std::to_string(result.feasible) + " feasible of " +
                   std::to_string(result.evaluated) + " evaluated";
  const auto point = [&](const StepEstimate& e) {
    const Score s = score(e);
    return ScatterPoint{s.of(axes[0]) / x.scale, s.of(axes[1]) / y.scale, s.of(axes[2]) / size.scale};
  };
  // Cost grows with time (GPU-hours), so the front of the three quantities is spread by the third: markers
  // only, one series per fabric, no line joining points that trade different quantities.
  for (const auto& e : result.pareto) {
    std::string fabric(to_string(e.topology));
    if (e.oversubscription != 1.0)
      fabric.append(" ").append(format_number(e.oversubscription, 3)).append(":1");
    auto found = std::find_if(chart.series.begin(), chart.series.end(),
                              [&](const ScatterSeries& s) { return s.name == fabric; });
    if (found == chart.series.end()) {
      chart.series.push_back(ScatterSeries{fabric, {}, false, true, ""});
      found = chart.series.end() - 1;
    }
    found->points.push_back(point(e));
  }
  ScatterSeries others{"other of top " + std::to_string(result.top.size()), {}, false, true, "#9a9a9a"};
  for (const auto& e : result.top) {
    const bool on_front = std::any_of(result.pareto.begin(), result.pareto.end(), [&](const StepEstimate& p) {
      return compare_configurations(p, e) == 0;
    });
    if (!on_front) others.points.push_back(point(e));
  }
  // Drawn first, so that the front is on top of them.
  if (!others.points.empty()) chart.series.insert(chart.series.begin(), std::move(others));
  return chart;
}

}  // namespace costmodel::inline COSTMODEL_ABI

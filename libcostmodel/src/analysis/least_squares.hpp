// SPDX-License-Identifier: Apache-2.0
#pragma once
// Bounded nonlinear least squares (private to analysis/): Levenberg-Marquardt with Marquardt's diagonal
// scaling (Marquardt 1963; Nocedal & Wright 2006 §10.3), box constraints by holding the parameters that a
// bound stops and projecting each step onto the bounds, forward-difference Jacobian. Parameter uncertainty
// from the Gauss-Newton covariance s^2 (J^T J)^-1, s^2 = 2 x cost / (m - n) (Bates & Watts 1988 §2.3).

#include <Eigen/Dense>
#include "costmodel/version.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace costmodel::inline COSTMODEL_ABI::detail {

struct BoundedFit {
  Eigen::VectorXd x;         ///< the parameters at the minimum
  Eigen::VectorXd residual;  ///< r(x)
  Eigen::MatrixXd jacobian;  ///< dr/dx at x
  double cost = 0;           ///< 0.5 x |r|^2
  int iterations = 0;
  /// Standard error of each parameter (infinite when the data do not constrain it).
  Eigen::VectorXd standard_error;
  /// Per parameter: false when the residuals do not depend on it (a zero column), it is tied to others, or
  /// its standard error exceeds `unidentifiable_error` (fit parameters in log space: a relative error).
  std::vector<bool> identifiable;
  std::vector<bool> at_bound;
};

using ResidualFunction = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;

inline Eigen::MatrixXd forward_jacobian(const ResidualFunction& f, const Eigen::VectorXd& x,
                                        const Eigen::VectorXd& r, const Eigen::VectorXd& hi,
                                        double relative_step) {
  Eigen::MatrixXd j(r.size(), x.size());
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    Eigen::VectorXd probe = x;
    double h = relative_step * std::max(1.0, std::fabs(x(k)));
    if (probe(k) + h > hi(k)) h = -h;  // step inward at the upper bound
    probe(k) += h;
    j.col(k) = (f(probe) - r) / h;
  }
  return j;
}

/// Minimises 0.5 |f(x)|^2 over lo <= x <= hi from x0 (clamped into the box). The standard errors use the
/// first `data_rows` residuals only (-1: all): rows after them are priors, which must not pass for data.
inline BoundedFit bounded_levenberg_marquardt(const ResidualFunction& f, Eigen::VectorXd x0,
                                              const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                                              int max_iterations = 200, double relative_step = 1e-4,
                                              double unidentifiable_error = 0.5,
                                              Eigen::Index data_rows = -1) {
  const auto clamp = [&](Eigen::VectorXd x) {
    for (Eigen::Index k = 0; k < x.size(); ++k) x(k) = std::clamp(x(k), lo(k), hi(k));
    return x;
  };
  BoundedFit fit;
  fit.x = clamp(std::move(x0));
  fit.residual = f(fit.x);
  fit.cost = 0.5 * fit.residual.squaredNorm();
  double lambda = 1e-3;
  const Eigen::Index n = fit.x.size();
  for (fit.iterations = 0; fit.iterations < max_iterations; ++fit.iterations) {
    fit.jacobian = forward_jacobian(f, fit.x, fit.residual, hi, relative_step);
    const Eigen::MatrixXd jtj = fit.jacobian.transpose() * fit.jacobian;
    const Eigen::VectorXd gradient = fit.jacobian.transpose() * fit.residual;
    // A parameter on a bound that the gradient pushes outward is held there (the active set of a projected
    // method, Nocedal & Wright 2006 §16.7): clipping its step instead would bend the others' step too.
    std::vector<bool> held(static_cast<size_t>(n), false);
    for (Eigen::Index k = 0; k < n; ++k) {
      held[static_cast<size_t>(k)] =
          (fit.x(k) <= lo(k) && gradient(k) > 0.0) || (fit.x(k) >= hi(k) && gradient(k) < 0.0);
    }
    bool improved = false;
    bool converged = false;
    for (int attempt = 0; attempt < 12 && !improved; ++attempt) {
      Eigen::MatrixXd a = jtj;
      Eigen::VectorXd rhs = -gradient;
      for (Eigen::Index k = 0; k < n; ++k) {
        a(k, k) += lambda * std::max(jtj(k, k), 1e-12);
        if (!held[static_cast<size_t>(k)]) continue;
        a.row(k).setZero();
        a.col(k).setZero();
        a(k, k) = 1.0;
        rhs(k) = 0.0;
      }
      const Eigen::VectorXd step = a.ldlt().solve(rhs);
      const Eigen::VectorXd candidate = clamp(fit.x + step);
      const Eigen::VectorXd r = f(candidate);
      const double cost = 0.5 * r.squaredNorm();
      if (std::isfinite(cost) && cost < fit.cost) {
        const double gain = (fit.cost - cost) / std::max(fit.cost, 1e-300);
        const double moved = (candidate - fit.x).norm();
        fit.x = candidate;
        fit.residual = r;
        fit.cost = cost;
        lambda = std::max(lambda / 3.0, 1e-9);
        improved = true;
        converged = gain < 1e-10 || moved < 1e-12;
      } else {
        lambda *= 4.0;
      }
    }
    if (!improved || converged) break;
  }
  fit.jacobian = forward_jacobian(f, fit.x, fit.residual, hi, relative_step);
  const Eigen::Index m = data_rows < 0 ? fit.residual.size() : std::min(data_rows, fit.residual.size());
  const Eigen::MatrixXd data_jacobian = fit.jacobian.topRows(m);
  const Eigen::MatrixXd jtj = data_jacobian.transpose() * data_jacobian;
  const double dof = static_cast<double>(std::max<Eigen::Index>(1, m - n));
  const double s2 = fit.residual.head(m).squaredNorm() / dof;
  fit.standard_error = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::infinity());
  fit.identifiable.assign(static_cast<size_t>(n), false);
  fit.at_bound.assign(static_cast<size_t>(n), false);
  // Covariance over the columns that carry information; a pseudo-inverse keeps tied parameters finite.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(jtj);
  const Eigen::VectorXd& values = eigen.eigenvalues();
  const double largest = values.size() > 0 ? values.maxCoeff() : 0.0;
  Eigen::MatrixXd inverse = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index k = 0; k < n; ++k) {
    if (values(k) > 1e-10 * largest && values(k) > 0.0) {
      inverse += eigen.eigenvectors().col(k) * eigen.eigenvectors().col(k).transpose() / values(k);
    }
  }
  for (Eigen::Index k = 0; k < n; ++k) {
    const auto i = static_cast<size_t>(k);
    fit.at_bound[i] = fit.x(k) <= lo(k) + 1e-12 || fit.x(k) >= hi(k) - 1e-12;
    const double column = data_jacobian.col(k).norm();
    if (column <= 1e-9 * std::max(1.0, std::sqrt(largest))) continue;
    // A parameter in a direction the eigen-decomposition drops has no finite variance.
    bool tied = false;
    for (Eigen::Index e = 0; e < n; ++e) {
      if (!(values(e) > 1e-10 * largest) && std::fabs(eigen.eigenvectors()(k, e)) > 0.1) tied = true;
    }
    if (tied) continue;
    fit.standard_error(k) = std::sqrt(std::max(0.0, s2 * inverse(k, k)));
    fit.identifiable[i] = fit.standard_error(k) <= unidentifiable_error;
  }
  return fit;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail

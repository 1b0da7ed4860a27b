#include "fakekube/metrics/metrics_registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace fakekube {

namespace metrics_detail {

enum Type { kCounter = 0, kGauge = 1, kHistogram = 2 };

const char* typeName(int type) {
  switch (type) {
    case kCounter:
      return "counter";
    case kGauge:
      return "gauge";
    default:
      return "histogram";
  }
}

struct Series {
  double value = 0;  // counter, gauge
  // Histogram: observations per bucket, not cumulative; the last entry is the +Inf bucket.
  std::vector<std::uint64_t> buckets;
  std::uint64_t count = 0;
  double sum = 0;
};

struct Family {
  std::string name;
  std::string help;
  int type = kCounter;
  std::vector<std::string> labelNames;
  std::vector<double> buckets;  // finite upper bounds, increasing

  mutable std::mutex mu;
  // By label values in labelNames order. Series never move, so handles can point at them.
  std::map<std::vector<std::string>, std::unique_ptr<Series>> series;

  Series* seriesFor(const std::vector<std::string>& values) {
    if (values.size() != labelNames.size()) {
      throw std::invalid_argument("metric " + name + ": expected " +
                                  std::to_string(labelNames.size()) + " label values, got " +
                                  std::to_string(values.size()));
    }
    std::lock_guard lock(mu);
    auto& slot = series[values];
    if (!slot) {
      slot = std::make_unique<Series>();
      if (type == kHistogram) slot->buckets.assign(buckets.size() + 1, 0);
    }
    return slot.get();
  }
};

}  // namespace metrics_detail

using metrics_detail::Family;
using metrics_detail::Series;

namespace {

bool validMetricName(const std::string& s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool validLabelName(const std::string& s) {
  if (s.empty() || s.rfind("__", 0) == 0) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string escapeHelp(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escapeLabelValue(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// `{a="1",b="2"}`, or `{a="1",le="0.5"}` with the extra label last (as client_golang writes
// "le"), or nothing when there are no labels at all.
std::string renderLabels(const std::vector<std::pair<std::string, std::string>>& labels,
                         const std::string& extraName = {}, const std::string& extraValue = {}) {
  if (labels.empty() && extraName.empty()) return {};
  std::string out = "{";
  bool first = true;
  auto put = [&](const std::string& name, const std::string& value) {
    if (!first) out += ',';
    first = false;
    out += name;
    out += "=\"";
    out += escapeLabelValue(value);
    out += '"';
  };
  for (const auto& [name, value] : labels) put(name, value);
  if (!extraName.empty()) put(extraName, extraValue);
  out += '}';
  return out;
}

}  // namespace

std::string formatPrometheusFloat(double v) {
  // client_golang's writeFloat: these first, then strconv.AppendFloat(v, 'g', -1, 64).
  if (v == 1) return "1";
  if (v == 0) return "0";
  if (v == -1) return "-1";
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";

  // The shortest digits that read back as v, and the decimal exponent.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, std::abs(v), std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<std::size_t>(end - buf));
  const std::size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const int exp = std::atoi(std::string(sci.substr(e + 1)).c_str());
  const int nd = static_cast<int>(digits.size());

  std::string out = v < 0 ? "-" : "";
  // Go's %g with the shortest precision uses %e when the exponent is < -4 or >= 6 (eprec 6).
  if (exp < -4 || exp >= 6) {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += exp < 0 ? "e-" : "e+";
    const int a = std::abs(exp);
    if (a < 10) out += '0';
    out += std::to_string(a);
  } else if (exp >= 0) {
    const int intDigits = exp + 1;
    out += digits.substr(0, std::min(nd, intDigits));
    if (nd < intDigits) out += std::string(static_cast<std::size_t>(intDigits - nd), '0');
    if (nd > intDigits) {
      out += '.';
      out += digits.substr(static_cast<std::size_t>(intDigits));
    }
  } else {
    out += "0.";
    out += std::string(static_cast<std::size_t>(-exp - 1), '0');
    out += digits;
  }
  return out;
}

// --- handles ---

void Counter::inc(double delta) {
  if (delta < 0) throw std::invalid_argument("counter " + family_->name + " cannot decrease");
  std::lock_guard lock(family_->mu);
  series_->value += delta;
}

void Counter::setTotal(double total) {
  std::lock_guard lock(family_->mu);
  series_->value = total;
}

double Counter::value() const {
  std::lock_guard lock(family_->mu);
  return series_->value;
}

void Gauge::set(double value) {
  std::lock_guard lock(family_->mu);
  series_->value = value;
}

void Gauge::add(double delta) {
  std::lock_guard lock(family_->mu);
  series_->value += delta;
}

double Gauge::value() const {
  std::lock_guard lock(family_->mu);
  return series_->value;
}

void Histogram::observe(double value) {
  std::lock_guard lock(family_->mu);
  const auto& bounds = family_->buckets;
  // The first bound >= value; past the end is the +Inf bucket.
  const auto i = std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin();
  ++series_->buckets[static_cast<std::size_t>(i)];
  ++series_->count;
  series_->sum += value;
}

void Histogram::load(const DurationHistogram& snapshot) {
  if (snapshot.bounds != family_->buckets || snapshot.counts.size() != snapshot.bounds.size()) {
    throw std::invalid_argument("histogram " + family_->name +
                                ": snapshot buckets differ from the family's");
  }
  std::lock_guard lock(family_->mu);
  // The snapshot is cumulative; the series keeps per-bucket counts.
  std::uint64_t below = 0;
  for (std::size_t i = 0; i < snapshot.counts.size(); ++i) {
    series_->buckets[i] = snapshot.counts[i] - below;
    below = snapshot.counts[i];
  }
  series_->buckets.back() = snapshot.count - below;
  series_->count = snapshot.count;
  series_->sum = snapshot.sum;
}

std::uint64_t Histogram::count() const {
  std::lock_guard lock(family_->mu);
  return series_->count;
}

double Histogram::sum() const {
  std::lock_guard lock(family_->mu);
  return series_->sum;
}

template <class Handle>
Handle MetricFamily<Handle>::withLabels(const std::vector<std::string>& values) const {
  return Handle(family_, family_->seriesFor(values));
}

template <class Handle>
const std::string& MetricFamily<Handle>::name() const {
  return family_->name;
}

template class MetricFamily<Counter>;
template class MetricFamily<Gauge>;
template class MetricFamily<Histogram>;

// --- registry ---

MetricsRegistry::MetricsRegistry() = default;
MetricsRegistry::~MetricsRegistry() = default;

Family* MetricsRegistry::add(const std::string& name, const std::string& help, int type,
                             const std::vector<std::string>& labelNames,
                             const std::vector<double>& bucketsIn) {
  if (!validMetricName(name)) throw std::invalid_argument("invalid metric name: " + name);
  for (std::size_t i = 0; i < labelNames.size(); ++i) {
    const auto& label = labelNames[i];
    if (!validLabelName(label)) {
      throw std::invalid_argument("metric " + name + ": invalid label name: " + label);
    }
    if (type == metrics_detail::kHistogram && label == "le") {
      throw std::invalid_argument("histogram " + name + ": \"le\" is reserved");
    }
    if (std::find(labelNames.begin(), labelNames.begin() + static_cast<std::ptrdiff_t>(i), label) !=
        labelNames.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw std::invalid_argument("metric " + name + ": duplicate label name: " + label);
    }
  }
  std::vector<double> buckets = bucketsIn;
  if (!buckets.empty() && std::isinf(buckets.back()) && buckets.back() > 0) buckets.pop_back();
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (std::isnan(buckets[i]) || (i > 0 && !(buckets[i - 1] < buckets[i]))) {
      throw std::invalid_argument("histogram " + name + ": buckets must be strictly increasing");
    }
  }

  std::lock_guard lock(mu_);
  if (auto it = families_.find(name); it != families_.end()) {
    const Family& f = *it->second;
    if (f.type != type || f.help != help || f.labelNames != labelNames || f.buckets != buckets) {
      throw std::invalid_argument("metric " + name + " is already registered differently");
    }
    return it->second.get();
  }
  auto family = std::make_unique<Family>();
  family->name = name;
  family->help = help;
  family->type = type;
  family->labelNames = labelNames;
  family->buckets = std::move(buckets);
  Family* f = family.get();
  families_.emplace(name, std::move(family));
  // An unlabelled metric exists (at zero) from registration, as client_golang's does.
  if (labelNames.empty()) f->seriesFor({});
  return f;
}

CounterFamily MetricsRegistry::counter(const std::string& name, const std::string& help,
                                       const std::vector<std::string>& labelNames) {
  return CounterFamily(add(name, help, metrics_detail::kCounter, labelNames, {}));
}

GaugeFamily MetricsRegistry::gauge(const std::string& name, const std::string& help,
                                   const std::vector<std::string>& labelNames) {
  return GaugeFamily(add(name, help, metrics_detail::kGauge, labelNames, {}));
}

HistogramFamily MetricsRegistry::histogram(const std::string& name, const std::string& help,
                                           const std::vector<double>& buckets,
                                           const std::vector<std::string>& labelNames) {
  return HistogramFamily(add(name, help, metrics_detail::kHistogram, labelNames, buckets));
}

std::string MetricsRegistry::renderPrometheusText() const {
  std::string out;
  std::lock_guard lock(mu_);
  for (const auto& [name, family] : families_) {  // std::map: sorted by name
    const Family& f = *family;
    std::lock_guard familyLock(f.mu);
    if (f.series.empty()) continue;

    // Labels are written, and series sorted, in label-name order.
    std::vector<std::size_t> order(f.labelNames.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return f.labelNames[a] < f.labelNames[b]; });
    using Labels = std::vector<std::pair<std::string, std::string>>;
    std::vector<std::pair<Labels, const Series*>> rows;
    for (const auto& [values, series] : f.series) {
      Labels labels;
      for (std::size_t i : order) labels.emplace_back(f.labelNames[i], values[i]);
      rows.emplace_back(std::move(labels), series.get());
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      for (std::size_t i = 0; i < a.first.size(); ++i) {
        if (a.first[i].second != b.first[i].second) return a.first[i].second < b.first[i].second;
      }
      return false;
    });

    out += "# HELP " + f.name + " " + escapeHelp(f.help) + "\n";
    out += "# TYPE " + f.name + " " + metrics_detail::typeName(f.type) + "\n";
    for (const auto& [labels, s] : rows) {
      if (f.type != metrics_detail::kHistogram) {
        out += f.name + renderLabels(labels) + " " + formatPrometheusFloat(s->value) + "\n";
        continue;
      }
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < f.buckets.size(); ++i) {
        cumulative += s->buckets[i];
        out += f.name + "_bucket" +
               renderLabels(labels, "le", formatPrometheusFloat(f.buckets[i])) + " " +
               formatPrometheusFloat(static_cast<double>(cumulative)) + "\n";
      }
      out += f.name + "_bucket" + renderLabels(labels, "le", "+Inf") + " " +
             formatPrometheusFloat(static_cast<double>(s->count)) + "\n";
      out += f.name + "_sum" + renderLabels(labels) + " " + formatPrometheusFloat(s->sum) + "\n";
      out += f.name + "_count" + renderLabels(labels) + " " +
             formatPrometheusFloat(static_cast<double>(s->count)) + "\n";
    }
  }
  return out;
}

}  // namespace fakekube

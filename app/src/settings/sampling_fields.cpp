#include "settings/sampling_fields.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <trit/sampler.h>

namespace trit::chat {
namespace {

const SamplingParams kDefaults;

const std::array<SamplingField, 7> kFields{{
    {"temperature", "sampling/temperature", false, double(kDefaults.temperature)},
    {"top_k", "sampling/topK", true, double(kDefaults.top_k)},
    {"top_p", "sampling/topP", false, double(kDefaults.top_p)},
    {"min_p", "sampling/minP", false, double(kDefaults.min_p)},
    {"repeat_penalty", "sampling/repeatPenalty", false, double(kDefaults.repeat_penalty)},
    {"repeat_last_n", nullptr, true, double(kDefaults.repeat_last_n)},
    {"max_tokens", "sampling/maxTokens", true, 2048},
}};

QString number(double v) {
  return QString::number(v, 'g', 10);
}

}  // namespace

std::span<const SamplingField> samplingFields() {
  return kFields;
}

const SamplingField& samplingField(const char* jsonKey) {
  for (const SamplingField& f : kFields)
    if (std::strcmp(f.jsonKey, jsonKey) == 0) return f;
  Q_UNREACHABLE();
}

QString samplingValueProblem(const SamplingField& field, double value) {
  if (!std::isfinite(value)) return QStringLiteral("must be a finite number (got %1)").arg(number(value));
  if (field.whole && (value != std::floor(value) || value < std::numeric_limits<std::int32_t>::min() ||
                      value > std::numeric_limits<std::int32_t>::max()))
    return QStringLiteral("must be a whole number (got %1)").arg(number(value));
  const QLatin1String key(field.jsonKey);
  if (key == QLatin1String("max_tokens")) {  // the engine takes it with the request, not the sampler
    if (value < 1 || value > kMaxReplyTokens)
      return QStringLiteral("max tokens must be from 1 to %1 (got %2)").arg(kMaxReplyTokens).arg(number(value));
    return {};
  }
  // The engine's rule: its own check of the defaults with this one value changed.
  SamplingParams p = kDefaults;
  if (key == QLatin1String("temperature"))
    p.temperature = static_cast<float>(value);
  else if (key == QLatin1String("top_k"))
    p.top_k = static_cast<std::int32_t>(value);
  else if (key == QLatin1String("top_p"))
    p.top_p = static_cast<float>(value);
  else if (key == QLatin1String("min_p"))
    p.min_p = static_cast<float>(value);
  else if (key == QLatin1String("repeat_penalty"))
    p.repeat_penalty = static_cast<float>(value);
  else if (key == QLatin1String("repeat_last_n"))
    p.repeat_last_n = static_cast<std::int32_t>(value);
  return QString::fromStdString(p.validate());
}

QString samplingJsonProblem(const QJsonObject& sampling, QString* key) {
  for (auto it = sampling.begin(); it != sampling.end(); ++it) {
    const SamplingField* field = nullptr;
    for (const SamplingField& f : kFields)
      if (it.key() == QLatin1String(f.jsonKey)) field = &f;
    *key = it.key();
    if (!field) {
      QStringList known;
      for (const SamplingField& f : kFields) known << QString::fromLatin1(f.jsonKey);
      return QStringLiteral("not a sampling setting (known: %1)").arg(known.join(QStringLiteral(", ")));
    }
    if (!it.value().isDouble()) {
      const QString given = it.value().isString()
                                ? QStringLiteral("\"%1\"").arg(it.value().toString())
                                : QStringLiteral("a JSON ") + (it.value().isBool()    ? QStringLiteral("boolean")
                                                               : it.value().isNull()  ? QStringLiteral("null")
                                                               : it.value().isArray() ? QStringLiteral("array")
                                                                                      : QStringLiteral("object"));
      return QStringLiteral("must be a number, not %1").arg(given);
    }
    if (const QString problem = samplingValueProblem(*field, it.value().toDouble()); !problem.isEmpty()) return problem;
  }
  return {};
}

}  // namespace trit::chat

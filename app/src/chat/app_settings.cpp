#include "chat/app_settings.h"

#include <algorithm>

namespace trit::chat {
namespace {
const SamplingParams kDefaults;  // the engine's defaults are the 2B4T chat defaults
constexpr int kDefaultMaxTokens = 2048;
constexpr int kDefaultFontSize = 11;
}  // namespace

AppSettings::AppSettings(const QString& file, QObject* parent)
    : QObject(parent),
      settings_(file.isEmpty() ? std::make_unique<QSettings>() : std::make_unique<QSettings>(file, QSettings::IniFormat)) {}

AppSettings::~AppSettings() = default;

QVariant AppSettings::get(const char* key, const QVariant& fallback) const {
  return settings_->value(QLatin1String(key), fallback);
}

void AppSettings::put(const char* key, const QVariant& value) {
  if (settings_->value(QLatin1String(key)) == value) return;
  settings_->setValue(QLatin1String(key), value);
  settings_->sync();
  emit changed();
}

double AppSettings::temperature() const { return get("sampling/temperature", double(kDefaults.temperature)).toDouble(); }
int AppSettings::topK() const { return get("sampling/topK", kDefaults.top_k).toInt(); }
double AppSettings::topP() const { return get("sampling/topP", double(kDefaults.top_p)).toDouble(); }
double AppSettings::minP() const { return get("sampling/minP", double(kDefaults.min_p)).toDouble(); }
double AppSettings::repeatPenalty() const {
  return get("sampling/repeatPenalty", double(kDefaults.repeat_penalty)).toDouble();
}
int AppSettings::maxTokens() const { return get("sampling/maxTokens", kDefaultMaxTokens).toInt(); }
int AppSettings::contextLength() const { return get("engine/contextLength", 0).toInt(); }
QString AppSettings::backend() const { return get("engine/backend", QStringLiteral("vulkan")).toString(); }
int AppSettings::device() const { return get("engine/device", -1).toInt(); }
QString AppSettings::theme() const { return get("ui/theme", QStringLiteral("system")).toString(); }
int AppSettings::fontSize() const { return get("ui/fontSize", kDefaultFontSize).toInt(); }
QString AppSettings::systemPrompt() const { return get("chat/systemPrompt", QString()).toString(); }
QString AppSettings::lastModel() const { return get("engine/lastModel", QString()).toString(); }

// Setters clamp to the ranges the sampler accepts, so a stored value can never make generation fail.
void AppSettings::setTemperature(double v) { put("sampling/temperature", std::clamp(v, 0.0, 2.0)); }
void AppSettings::setTopK(int v) { put("sampling/topK", std::clamp(v, 0, 1000)); }
void AppSettings::setTopP(double v) { put("sampling/topP", std::clamp(v, 0.0, 1.0)); }
void AppSettings::setMinP(double v) { put("sampling/minP", std::clamp(v, 0.0, 1.0)); }
void AppSettings::setRepeatPenalty(double v) { put("sampling/repeatPenalty", std::clamp(v, 1.0, 2.0)); }
void AppSettings::setMaxTokens(int v) { put("sampling/maxTokens", std::clamp(v, 1, 1 << 20)); }
void AppSettings::setContextLength(int v) { put("engine/contextLength", std::clamp(v, 0, 1 << 20)); }
void AppSettings::setBackend(const QString& v) {
  put("engine/backend", v == QLatin1String("cpu") ? QStringLiteral("cpu") : QStringLiteral("vulkan"));
}
void AppSettings::setDevice(int v) { put("engine/device", std::max(v, -1)); }
void AppSettings::setTheme(const QString& v) {
  put("ui/theme", (v == QLatin1String("light") || v == QLatin1String("dark")) ? v : QStringLiteral("system"));
}
void AppSettings::setFontSize(int v) { put("ui/fontSize", std::clamp(v, 8, 32)); }
void AppSettings::setSystemPrompt(const QString& v) { put("chat/systemPrompt", v); }
void AppSettings::setLastModel(const QString& v) { put("engine/lastModel", v); }

SamplingParams AppSettings::sampling() const {
  SamplingParams p;
  p.temperature = static_cast<float>(temperature());
  p.top_k = topK();
  p.top_p = static_cast<float>(topP());
  p.min_p = static_cast<float>(minP());
  p.repeat_penalty = static_cast<float>(repeatPenalty());
  return p;
}

void AppSettings::resetSampling() {
  settings_->remove(QStringLiteral("sampling"));
  settings_->sync();
  emit changed();
}

}  // namespace trit::chat

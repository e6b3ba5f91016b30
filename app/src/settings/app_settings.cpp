#include "settings/app_settings.h"

#include <QDebug>
#include <algorithm>

#include "settings/sampling_fields.h"
#include "storage/app_folders.h"

namespace trit::chat {
namespace {
constexpr int kDefaultFontSize = 11;
}  // namespace

AppSettings::AppSettings(const QString& file, QObject* parent)
    : QObject(parent),
      settings_(file.isEmpty() ? storage::openSettings() : std::make_unique<QSettings>(file, QSettings::IniFormat)) {}

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

// A sampling value as stored, checked by the one rule for stored sampling values (sampling_fields.h): a
// bad one (edited by hand, or written by another version) falls back to the default, said once on stderr,
// instead of failing every reply.
double AppSettings::storedSampling(const char* jsonKey) const {
  const SamplingField& field = samplingField(jsonKey);
  const QVariant stored = settings_->value(QLatin1String(field.settingsKey));
  if (!stored.isValid()) return field.defaultValue;
  bool ok = false;
  const double value = stored.toDouble(&ok);  // an INI file holds text
  const QString problem = ok ? samplingValueProblem(field, value) : QStringLiteral("not a number");
  if (problem.isEmpty()) return value;
  const QString text = stored.toString();
  if (!warned_.contains(QLatin1String(field.settingsKey) + QLatin1Char('=') + text)) {
    warned_.insert(QLatin1String(field.settingsKey) + QLatin1Char('=') + text);
    qWarning().noquote() << QStringLiteral(
                                "trit: the setting %1 in %2 is \"%3\", which cannot be used (%4); using "
                                "the default, %5.")
                                .arg(QLatin1String(field.settingsKey), settings_->fileName(), text, problem,
                                     QString::number(field.defaultValue));
  }
  return field.defaultValue;
}

double AppSettings::temperature() const {
  return storedSampling("temperature");
}
int AppSettings::topK() const {
  return static_cast<int>(storedSampling("top_k"));
}
double AppSettings::topP() const {
  return storedSampling("top_p");
}
double AppSettings::minP() const {
  return storedSampling("min_p");
}
double AppSettings::repeatPenalty() const {
  return storedSampling("repeat_penalty");
}
int AppSettings::maxTokens() const {
  return static_cast<int>(storedSampling("max_tokens"));
}
int AppSettings::contextLength() const {
  return get("engine/contextLength", 0).toInt();
}
QString AppSettings::backend() const {
  return get("engine/backend", QStringLiteral("vulkan")).toString();
}
int AppSettings::device() const {
  return get("engine/device", -1).toInt();
}
QString AppSettings::theme() const {
  return get("ui/theme", QStringLiteral("system")).toString();
}
int AppSettings::fontSize() const {
  return get("ui/fontSize", kDefaultFontSize).toInt();
}
bool AppSettings::reduceMotion() const {
  return get("ui/reduceMotion", false).toBool();
}
QString AppSettings::systemPrompt() const {
  return get("chat/systemPrompt", QString()).toString();
}
QString AppSettings::lastModel() const {
  return get("engine/lastModel", QString()).toString();
}
bool AppSettings::apiServerEnabled() const {
  return get("apiServer/enabled", false).toBool();
}
int AppSettings::apiServerPort() const {
  return std::clamp(get("apiServer/port", 8080).toInt(), 1, 65535);
}
QString AppSettings::apiServerKey() const {
  return get("apiServer/key", QString()).toString();
}
bool AppSettings::apiServerAllowOthers() const {
  return get("apiServer/allowOtherMachines", false).toBool();
}

// Setters clamp to the ranges the sampler accepts, so a stored value can never make generation fail.
void AppSettings::setTemperature(double v) {
  put("sampling/temperature", std::clamp(v, 0.0, 2.0));
}
void AppSettings::setTopK(int v) {
  put("sampling/topK", std::clamp(v, 0, 1000));
}
// The engine wants top-p in (0, 1] and min-p in [0, 1): the dialog's 0.00 and 1.00 would fail every reply.
void AppSettings::setTopP(double v) {
  put("sampling/topP", std::clamp(v, 0.01, 1.0));
}
void AppSettings::setMinP(double v) {
  put("sampling/minP", std::clamp(v, 0.0, 0.99));
}
void AppSettings::setRepeatPenalty(double v) {
  put("sampling/repeatPenalty", std::clamp(v, 1.0, 2.0));
}
void AppSettings::setMaxTokens(int v) {
  put("sampling/maxTokens", std::clamp(v, 1, kMaxReplyTokens));
}
void AppSettings::setContextLength(int v) {
  put("engine/contextLength", std::clamp(v, 0, 1 << 20));
}
void AppSettings::setBackend(const QString& v) {
  put("engine/backend", v == QLatin1String("cpu") ? QStringLiteral("cpu") : QStringLiteral("vulkan"));
}
void AppSettings::setDevice(int v) {
  put("engine/device", std::max(v, -1));
}
void AppSettings::setTheme(const QString& v) {
  put("ui/theme", (v == QLatin1String("light") || v == QLatin1String("dark")) ? v : QStringLiteral("system"));
}
void AppSettings::setFontSize(int v) {
  put("ui/fontSize", std::clamp(v, 8, 32));
}
void AppSettings::setReduceMotion(bool v) {
  put("ui/reduceMotion", v);
}
void AppSettings::setSystemPrompt(const QString& v) {
  put("chat/systemPrompt", v);
}
void AppSettings::setLastModel(const QString& v) {
  put("engine/lastModel", v);
}
void AppSettings::setApiServerEnabled(bool v) {
  put("apiServer/enabled", v);
}
void AppSettings::setApiServerPort(int v) {
  put("apiServer/port", std::clamp(v, 1, 65535));
}
// Spaces around a pasted key would make every client's key "wrong" for reasons nobody could see.
void AppSettings::setApiServerKey(const QString& v) {
  put("apiServer/key", v.trimmed());
}
void AppSettings::setApiServerAllowOthers(bool v) {
  put("apiServer/allowOtherMachines", v);
}

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

#pragma once
// The user's settings, persisted with QSettings the moment they change: sampling defaults (tuned for
// BitNet b1.58 2B4T), context length, engine backend and GPU, theme, font size, reduced motion, the last
// model, and the local API server (off, port 8080, no key, this machine only by default).
#include <QObject>
#include <QSet>
#include <QSettings>
#include <memory>

#include <trit/sampler.h>

namespace trit::chat {

class AppSettings : public QObject {
  Q_OBJECT
  Q_PROPERTY(double temperature READ temperature WRITE setTemperature NOTIFY changed)
  Q_PROPERTY(int topK READ topK WRITE setTopK NOTIFY changed)
  Q_PROPERTY(double topP READ topP WRITE setTopP NOTIFY changed)
  Q_PROPERTY(double minP READ minP WRITE setMinP NOTIFY changed)
  Q_PROPERTY(double repeatPenalty READ repeatPenalty WRITE setRepeatPenalty NOTIFY changed)
  Q_PROPERTY(int maxTokens READ maxTokens WRITE setMaxTokens NOTIFY changed)
  Q_PROPERTY(int contextLength READ contextLength WRITE setContextLength NOTIFY changed)
  Q_PROPERTY(QString backend READ backend WRITE setBackend NOTIFY changed)
  Q_PROPERTY(int device READ device WRITE setDevice NOTIFY changed)
  Q_PROPERTY(QString theme READ theme WRITE setTheme NOTIFY changed)
  Q_PROPERTY(int fontSize READ fontSize WRITE setFontSize NOTIFY changed)
  Q_PROPERTY(bool reduceMotion READ reduceMotion WRITE setReduceMotion NOTIFY changed)
  Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY changed)
  Q_PROPERTY(QString lastModel READ lastModel WRITE setLastModel NOTIFY changed)
  Q_PROPERTY(bool apiServerEnabled READ apiServerEnabled WRITE setApiServerEnabled NOTIFY changed)
  Q_PROPERTY(int apiServerPort READ apiServerPort WRITE setApiServerPort NOTIFY changed)
  Q_PROPERTY(QString apiServerKey READ apiServerKey WRITE setApiServerKey NOTIFY changed)
  Q_PROPERTY(bool apiServerAllowOthers READ apiServerAllowOthers WRITE setApiServerAllowOthers NOTIFY changed)

 public:
  // Default: the application's QSettings. A file path (tests) gives an INI file of its own.
  explicit AppSettings(const QString& file = {}, QObject* parent = nullptr);
  ~AppSettings() override;

  double temperature() const;
  int topK() const;
  double topP() const;
  double minP() const;
  double repeatPenalty() const;
  int maxTokens() const;
  int contextLength() const;  // 0: the model's trained length
  QString backend() const;    // "vulkan" or "cpu"
  int device() const;         // -1: automatic
  QString theme() const;      // "system", "light" or "dark"
  int fontSize() const;       // points
  bool reduceMotion() const;  // no transitions or animated colours in the window
  QString systemPrompt() const;
  QString lastModel() const;
  bool apiServerEnabled() const;
  int apiServerPort() const;          // 1-65535
  QString apiServerKey() const;       // empty: none (then the server listens on this machine only)
  bool apiServerAllowOthers() const;  // listen on every interface (needs a key: ApiServer refuses otherwise)

  void setTemperature(double v);
  void setTopK(int v);
  void setTopP(double v);
  void setMinP(double v);
  void setRepeatPenalty(double v);
  void setMaxTokens(int v);
  void setContextLength(int v);
  void setBackend(const QString& v);
  void setDevice(int v);
  void setTheme(const QString& v);
  void setFontSize(int v);
  void setReduceMotion(bool v);
  void setSystemPrompt(const QString& v);
  void setLastModel(const QString& v);
  void setApiServerEnabled(bool v);
  void setApiServerPort(int v);
  void setApiServerKey(const QString& v);
  void setApiServerAllowOthers(bool v);

  // The sampler settings as the engine takes them (a fresh seed is set per reply by the caller).
  SamplingParams sampling() const;
  Q_INVOKABLE void resetSampling();  // back to the 2B4T defaults

 signals:
  void changed();

 private:
  QVariant get(const char* key, const QVariant& fallback) const;
  double storedSampling(const char* jsonKey) const;
  void put(const char* key, const QVariant& value);
  std::unique_ptr<QSettings> settings_;
  mutable QSet<QString> warned_;  // "key=value" of bad stored values already reported
};

}  // namespace trit::chat

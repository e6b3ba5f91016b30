#pragma once
// The local API server in the app (Settings → Local API server): the OpenAI-compatible HTTP API of
// `trit-cli serve` (engine/server) on the model the window has loaded, started and stopped as the
// settings say. Off by default; on this machine only (127.0.0.1 and ::1) unless "Allow other machines"
// is on, which binds every IPv4 and IPv6 interface ("::") and then requires an API key (server::validate
// decides).
//
// Threads: this object lives on the UI thread. The HttpServer is started and stopped on a thread of
// its own ("trit-api-control"), so the window never waits for a bind or for idle connections to close;
// requests are read on cpp-httplib's threads and generated on the engine thread (AppScheduler).
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>
#include <memory>
#include <string>

namespace trit::server {
class HttpServer;
}
namespace trit::chat {
class AppSettings;
class EngineBridge;
}  // namespace trit::chat

namespace trit::api {

class AppScheduler;

class ApiServer : public QObject {
  Q_OBJECT
  // "off", "starting", "listening", "stopping" or "error"
  Q_PROPERTY(QString state READ state NOTIFY stateChanged)
  // What the window shows: "Listening on http://127.0.0.1:8080, …", "Off", or what went wrong.
  Q_PROPERTY(QString statusText READ statusText NOTIFY stateChanged)
  Q_PROPERTY(QStringList urls READ urls NOTIFY stateChanged)
  Q_PROPERTY(QString url READ url NOTIFY stateChanged)  // the first, for "Copy URL"

 public:
  ApiServer(chat::EngineBridge* engine, chat::AppSettings* settings, QObject* parent = nullptr);
  // Stops the server: requests in flight end (503), and idle connections get up to a second to close.
  ~ApiServer() override;

  // From now on the server follows the settings (started now if they say so). Self-checks never call
  // it, so they never take the port of the user's running app.
  void followSettings();

  QString state() const { return state_; }
  QString statusText() const;
  QStringList urls() const { return urls_; }
  QString url() const { return urls_.isEmpty() ? QString() : urls_.constFirst(); }

  Q_INVOKABLE void copyUrl() const;
  // A new random API key (32 hex digits) for the settings' key field.
  Q_INVOKABLE QString generateKey() const;

 signals:
  void stateChanged();

 private:
  struct Config {
    std::string host;
    int port = 0;
    std::string key;
    bool operator==(const Config&) const = default;
  };
  void apply();
  void start(const Config& config);
  void stopRunning();
  void setState(const QString& state, const QString& error = {}, const QStringList& urls = {});
  void onStarted(quint64 id, const QStringList& urls);
  void onStartFailed(quint64 id, const QString& error);
  void onStopped();

  chat::EngineBridge* engine_;
  chat::AppSettings* settings_;
  QThread control_;                          // starts and stops HTTP servers, one thing at a time, in order
  QObject* controlContext_;                  // lives on control_: the queued start/stop calls run on it
  std::shared_ptr<AppScheduler> scheduler_;  // the running server's (UI thread: to interrupt its jobs)
  // The running server and the scheduler it refers to: created, started, stopped and destroyed on
  // control_ only (the server first: it is declared last).
  std::shared_ptr<AppScheduler> httpScheduler_;
  std::unique_ptr<server::HttpServer> http_;
  quint64 running_ = 0;  // id of the server started or starting, 0: none
  quint64 nextId_ = 0;
  int stopping_ = 0;  // stops still under way
  Config config_;     // what the running server was started with
  bool following_ = false;
  QString state_ = QStringLiteral("off");
  QString error_;
  QStringList urls_;
};

}  // namespace trit::api

#include "server/api_server.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QHostAddress>
#include <QNetworkInterface>
#include <QRandomGenerator>
#include <exception>

#include "engine_thread/engine_bridge.h"
#include "http_server.h"
#include "server/app_scheduler.h"
#include "settings/app_settings.h"

namespace trit::api {
namespace {

// Told to API clients (in English, like every API error) whose request the model switch ended.
constexpr const char* kModelSwitched =
    "the model was unloaded or replaced in Trit's window while this request waited or ran; send it again";

QString fromStd(const std::string& s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace

ApiServer::ApiServer(chat::EngineBridge* engine, chat::AppSettings* settings, QObject* parent)
    : QObject(parent), engine_(engine), settings_(settings), controlContext_(new QObject) {
  control_.setObjectName(QStringLiteral("trit-api-control"));
  controlContext_->moveToThread(&control_);
  connect(&control_, &QThread::finished, controlContext_, &QObject::deleteLater);
  control_.start();
  // Before the engine is asked to load or unload: API jobs on the old model end now (their clients get a
  // 503 saying why) instead of making the switch wait for them.
  connect(engine_, &chat::EngineBridge::modelSwitching, this, [this] {
    if (scheduler_) scheduler_->interruptAll(kModelSwitched);
  });
}

ApiServer::~ApiServer() {
  if (running_) stopRunning();
  // Queued behind every start and stop asked for: they all run, in order, before the thread ends.
  QMetaObject::invokeMethod(
      controlContext_, [this] { control_.quit(); }, Qt::QueuedConnection);
  control_.wait();  // every request has ended by now; idle connections close within a second
}

void ApiServer::followSettings() {
  if (following_) return;
  following_ = true;
  connect(settings_, &chat::AppSettings::changed, this, &ApiServer::apply);
  apply();
}

void ApiServer::apply() {
  const bool enabled = following_ && settings_->apiServerEnabled();
  Config want;
  // "::" is every interface of IPv4 and IPv6 (HttpServer::start; IPv4 alone on a machine without IPv6).
  want.host = settings_->apiServerAllowOthers() ? "::" : "127.0.0.1";
  want.port = settings_->apiServerPort();
  want.key = settings_->apiServerKey().toStdString();
  server::ServerOptions options;
  options.host = want.host;
  options.port = want.port;
  options.api_key = want.key;
  // The one rule for what may listen where (a key for other machines) is the CLI's.
  const std::string problem = enabled ? server::validate(options) : std::string();
  const bool run = enabled && problem.empty();
  if (running_ && (!run || want != config_)) stopRunning();
  if (run) {
    if (!running_) start(want);
    return;
  }
  if (!problem.empty()) {
    // The settings can break only this rule (the port is kept in range); any other is shown as it is.
    const bool needsKey = settings_->apiServerAllowOthers() && want.key.empty();
    setState(QStringLiteral("error"),
             needsKey ? tr("Not started: other machines may connect only with an API key. Set a key, or turn off "
                           "“Allow other machines”.")
                      : tr("Not started: %1").arg(fromStd(problem)));
    return;
  }
  setState(stopping_ > 0 ? QStringLiteral("stopping") : QStringLiteral("off"));
}

void ApiServer::start(const Config& config) {
  server::ServerOptions options;
  options.host = config.host;
  options.port = config.port;
  options.api_key = config.key;
  options.log_requests = false;  // the window is the app's log
  // stop() waits for idle keep-alive connections this long (the window, or quitting, waits for it).
  options.keep_alive_timeout = std::chrono::seconds(1);
  const quint64 id = ++nextId_;
  running_ = id;
  config_ = config;
  scheduler_ = std::make_shared<AppScheduler>(engine_, options.queue);
  setState(QStringLiteral("starting"));
  QMetaObject::invokeMethod(
      controlContext_,
      [this, id, options, scheduler = scheduler_, engine = engine_] {
        QStringList urls;
        QString error;
        try {
          // Each request takes the model the window has loaded when it arrives (none: 503).
          auto http =
              std::make_unique<server::HttpServer>([engine] { return engine->servedModel(); }, *scheduler, options);
          http->start();
          for (const auto& u : http->urls()) urls << fromStd(u);
          httpScheduler_ = scheduler;
          http_ = std::move(http);
        } catch (const std::exception&) {
          error = tr("Not started: port %1 is in use by another program, or reserved for the system (ports below "
                     "1024). Choose another port.")
                      .arg(options.port);
        }
        QMetaObject::invokeMethod(
            this,
            [this, id, urls, error] {
              if (error.isEmpty())
                onStarted(id, urls);
              else
                onStartFailed(id, error);
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

void ApiServer::stopRunning() {
  // Requests waiting or running end now (503 "shutting down"), so the HTTP threads can be joined.
  scheduler_->shutdown();
  running_ = 0;
  ++stopping_;
  setState(QStringLiteral("stopping"));
  QMetaObject::invokeMethod(
      controlContext_,
      [this] {
        if (http_) http_->stop();  // the ports close at once; idle connections take up to a second
        http_.reset();
        httpScheduler_.reset();
        QMetaObject::invokeMethod(
            this, [this] { onStopped(); }, Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
  scheduler_.reset();
}

void ApiServer::onStarted(quint64 id, const QStringList& urls) {
  if (id != running_) return;  // stopped again before it was up
  QStringList shown = urls;
  if (config_.host == "::") {
    // Every interface: this machine's own addresses first (to copy), then the ones others can reach.
    // IPv6 ones only where it listens on IPv6 too ("[::]", not the IPv4-only fallback "0.0.0.0");
    // link-local addresses are left out (a URL needs their interface's name, and no browser takes one).
    const bool ipv6 = urls.contains(QStringLiteral("http://[::]:%1").arg(config_.port));
    shown = {QStringLiteral("http://127.0.0.1:%1").arg(config_.port)};
    if (ipv6) shown << QStringLiteral("http://[::1]:%1").arg(config_.port);
    for (const QHostAddress& a : QNetworkInterface::allAddresses()) {
      if (a.isLoopback() || a.isLinkLocal()) continue;
      if (a.protocol() == QAbstractSocket::IPv4Protocol)
        shown << QStringLiteral("http://%1:%2").arg(a.toString()).arg(config_.port);
      else if (ipv6 && a.protocol() == QAbstractSocket::IPv6Protocol && a.scopeId().isEmpty())
        shown << QStringLiteral("http://[%1]:%2").arg(a.toString()).arg(config_.port);
    }
  }
  setState(QStringLiteral("listening"), {}, shown);
}

void ApiServer::onStartFailed(quint64 id, const QString& error) {
  if (id != running_) return;
  running_ = 0;
  if (scheduler_) scheduler_->shutdown();
  scheduler_.reset();
  setState(QStringLiteral("error"), error);
}

void ApiServer::onStopped() {
  --stopping_;
  if (stopping_ == 0 && state_ == QLatin1String("stopping")) apply();
}

void ApiServer::setState(const QString& state, const QString& error, const QStringList& urls) {
  if (state == state_ && error == error_ && urls == urls_) return;
  state_ = state;
  error_ = error;
  urls_ = urls;
  emit stateChanged();
}

QString ApiServer::statusText() const {
  if (state_ == QLatin1String("listening")) return tr("Listening on %1").arg(urls_.join(QStringLiteral(", ")));
  if (state_ == QLatin1String("starting")) return tr("Starting…");
  if (state_ == QLatin1String("stopping")) return tr("Stopping…");
  if (state_ == QLatin1String("error")) return error_;
  return tr("Off");
}

void ApiServer::copyUrl() const {
  if (auto* clipboard = QGuiApplication::clipboard(); clipboard && !url().isEmpty()) clipboard->setText(url());
}

QString ApiServer::generateKey() const {
  QString key;
  for (int i = 0; i < 4; ++i)
    key += QStringLiteral("%1").arg(QRandomGenerator::system()->generate(), 8, 16, QLatin1Char('0'));
  return key;
}

}  // namespace trit::api

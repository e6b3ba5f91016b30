// trit: the desktop chat app.
#include <QCommandLineParser>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QTimer>
#include <cstdio>

#include "about/about_info.h"
#include "chat_app.h"
#include "command_line.h"
#include "headless/conversations_cli.h"
#include "headless/models_cli.h"
#include "main_window.h"
#include "models/model_manager_bridge.h"
#include "models/model_manager_options.h"
#include "storage/app_folders.h"

namespace {

void setApplicationNames() {
  trit::storage::setApplicationNames(QStringLiteral(TRIT_APP_VERSION));
}

// Headless commands: data and settings of versions before 0.2 move to this version's folders once,
// before anything reads them; what moved, or what could not (it is then used from where it is), is said
// on stderr. (The window does the same in ChatApp::configure and also shows it.)
void moveLegacyFolders() {
  const QString message = trit::storage::moveLegacyFoldersOnce();
  if (!message.isEmpty()) std::fprintf(stderr, "trit: %s\n", qPrintable(message));
}

int usageError(const QString& message) {
  std::fprintf(stderr, "trit: %s\n", qPrintable(message));
  return 2;
}

// An argument neither we nor Qt took.
QString notOurs(const QString& argument) {
  return argument.startsWith(QLatin1Char('-')) ? QStringLiteral("unknown option \"%1\"").arg(argument)
                                               : QStringLiteral("unexpected argument \"%1\"").arg(argument);
}

}  // namespace

int main(int argc, char* argv[]) {
  // One parser for every option of the binary, run before any application object: Qt gets only the
  // arguments that are not ours (command_line.h), so none of ours can be taken for one of Qt's.
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Private, offline chat with ternary language models"));
  parser.addHelpOption();
  parser.addVersionOption();
  const QList<QCommandLineOption> options = trit::app::allOptions();
  parser.addOptions(options);
  const trit::app::SplitArguments split = trit::app::splitArguments(trit::app::argumentsOf(argc, argv), options);
  const bool parsed = parser.parse(split.ours);
  trit::app::Mode mode = trit::app::Mode::Window;
  QString usage;
  if (!parsed)
    usage = parser.errorText();
  else if (!parser.positionalArguments().isEmpty())
    usage = QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().constFirst());
  else
    trit::app::commandMode(parser, &mode, &usage);

  if (mode != trit::app::Mode::Window || !usage.isEmpty() || parser.isSet(QStringLiteral("help")) ||
      parser.isSet(QStringLiteral("version"))) {
    // Headless (no display needed): Qt takes no arguments at all, and any argument not ours is refused.
    trit::app::Argv programOnly(split.qt.mid(0, 1));
    QCoreApplication app(programOnly.argc(), programOnly.argv());
    setApplicationNames();
    if (!usage.isEmpty()) return usageError(usage);
    if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version"))) {  // the product's name, not the folders' "trit"
      std::printf("Trit %s\n", TRIT_APP_VERSION);
      return 0;
    }
    if (split.qt.size() > 1) return usageError(notOurs(split.qt.at(1)));
    moveLegacyFolders();
    if (mode == trit::app::Mode::ListModels || mode == trit::app::Mode::Download)
      return trit::app::runModelsCommand(parser);
    return trit::app::runConversationCommand(parser);
  }

  trit::app::Argv qtArguments(split.qt);
  QGuiApplication app(qtArguments.argc(), qtArguments.argv());
  setApplicationNames();
  QGuiApplication::setApplicationDisplayName(QStringLiteral("Trit"));
  QGuiApplication::setDesktopFileName(QStringLiteral("org.trit.Trit"));  // packaging/org.trit.Trit.desktop
  // What Qt did not take as its own (-platform, -style, ...) is neither Qt's nor ours.
  if (const QStringList left = QCoreApplication::arguments().mid(1); !left.isEmpty())
    return usageError(notOurs(left.constFirst()));
  const QCommandLineOption checkStartup(QStringLiteral("check-startup"));
  trit::app::applyConversationOptions(parser);

  // The chat: settings, engine thread and bridges; one instance per user (a second start raises the first).
  trit::chat::ChatApp chat;
  if (QString chatError; !chat.configure(parser, &chatError)) {
    std::fprintf(stderr, "trit: %s\n", qPrintable(chatError));
    return 2;
  }
  if (!chat.claimSingleInstance(parser.isSet(checkStartup))) return 0;

  QQmlApplicationEngine engine;
  chat.install(engine);
  trit::about::exposeAboutInfo(engine);  // App.about (app_services.h), read by qml/AboutDialog.qml
  const trit::models::ModelManagerSetup modelSetup = trit::models::readModelManagerOptions(parser);
  // App.models, read by Main.qml (the model manager page, the welcome) and the settings' models folder
  trit::models::ModelManagerBridge* models =
      trit::models::exposeModelManager(engine, modelSetup.catalog, modelSetup.modelsDir);
  trit::models::followEngineSettings(*models, *chat.settings());  // "fits the GPU" for the chosen device
  // Main.qml shows the first-run welcome when no model is installed: let the folder scan (on
  // the models worker thread) answer first, but never hold the window back for more than 3 s.
  models->waitForFirstScan(3000);
  QString error;
  QQuickWindow* window = trit::app::loadMainWindow(engine, &error);
  if (!window) {
    std::fprintf(stderr, "trit: cannot open the main window: %s\n", qPrintable(error));
    return 1;
  }
  chat.attach(window);
  if (parser.isSet(checkStartup)) {
    // Let the window be exposed and render one frame, and the model manager read its catalogue and
    // scan its folder, before reporting.
    auto report = [window, models] {
      std::printf("main window: \"%s\" %dx%d visible=%d\n", qPrintable(window->title()), window->width(),
                  window->height(), window->isVisible());
      std::printf("models: catalogue \"%s\" (%d entries%s), folder \"%s\" (%d installed)\n",
                  qPrintable(models->catalogSource()), models->catalogSize(),
                  models->catalogError().isEmpty() ? "" : qPrintable(QStringLiteral(": ") + models->catalogError()),
                  qPrintable(models->modelsFolder()), models->installedCount());
      std::fflush(stdout);
      QCoreApplication::exit(window->isVisible() ? 0 : 1);
    };
    QObject::connect(
        window, &QQuickWindow::frameSwapped, &app,
        [models, report] {
          if (models->isReady())
            report();
          else
            QObject::connect(models, &trit::models::ModelManagerBridge::ready, models, report,
                             Qt::SingleShotConnection);
        },
        Qt::SingleShotConnection);
    QTimer::singleShot(20000, &app, [] {
      std::fprintf(stderr, "trit: the main window rendered no frame within 20 s\n");
      QCoreApplication::exit(1);
    });
  }
  return QGuiApplication::exec();
}

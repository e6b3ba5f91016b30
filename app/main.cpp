// trit: the desktop chat app.
#include <QCommandLineParser>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QTimer>
#include <cstdio>

#include "headless/conversations_cli.h"
#include "headless/models_cli.h"
#include "about/about_info.h"
#include "chat/chat_app.h"
#include "main_window.h"
#include "models/model_manager_bridge.h"
#include "models/model_manager_options.h"

int main(int argc, char* argv[]) {
  // Headless model commands (--download, --list-models) need no display: handled before the GUI exists.
  if (trit::app::isModelsCommand(argc, argv)) return trit::app::runModelsCommand(argc, argv);
  // Headless conversation commands (--list-conversations, --export-/--import-conversation) need no display.
  if (trit::app::isConversationCommand(argc, argv)) return trit::app::runConversationCommand(argc, argv);
  QGuiApplication app(argc, argv);
  QGuiApplication::setApplicationName(QStringLiteral("Trit"));
  QGuiApplication::setOrganizationName(QStringLiteral("Trit"));
  QGuiApplication::setApplicationVersion(QStringLiteral(TRIT_APP_VERSION));
  QGuiApplication::setDesktopFileName(QStringLiteral("org.trit.Trit"));  // packaging/org.trit.Trit.desktop

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Private, offline chat with ternary language models"));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption checkStartup(QStringLiteral("check-startup"),
                                  QStringLiteral("Open the main window, report it and exit (used by tests)."));
  parser.addOption(checkStartup);
  trit::chat::ChatApp::addOptions(parser);
  trit::app::addConversationOptions(parser);  // --data-dir, and the headless commands in --help
  trit::models::addModelManagerOptions(parser);  // --catalog, --models-dir: as in the headless commands
  parser.process(app);
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
  trit::about::exposeAboutInfo(engine);  // "tritAbout", read by qml/AboutDialog.qml
  const trit::models::ModelManagerSetup modelSetup = trit::models::readModelManagerOptions(parser);
  // "tritModels", read by Main.qml's model manager and the settings' models folder
  trit::models::ModelManagerBridge* models = trit::models::exposeModelManager(engine, modelSetup.catalog, modelSetup.modelsDir);
  trit::models::followEngineSettings(*models, *chat.settings());  // "fits the GPU" for the chosen device
  // Main.qml offers the model manager at first start when no model is installed: let the folder scan (on
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
    QObject::connect(window, &QQuickWindow::frameSwapped, &app, [models, report] {
      if (models->isReady()) report();
      else QObject::connect(models, &trit::models::ModelManagerBridge::ready, models, report, Qt::SingleShotConnection);
    }, Qt::SingleShotConnection);
    QTimer::singleShot(20000, &app, [] {
      std::fprintf(stderr, "trit: the main window rendered no frame within 20 s\n");
      QCoreApplication::exit(1);
    });
  }
  return QGuiApplication::exec();
}

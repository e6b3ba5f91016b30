// The `trit` binary's command line (app/src/command_line.h): our options are ours in both spellings
// (--opt=value, --opt value) and never reach Qt, Qt's own options never reach our parser, and a
// command line asking for two things at once is refused instead of doing one of them.
#include <QCommandLineParser>
#include <QtTest>

#include "command_line.h"

using namespace trit::app;

namespace {

struct Parsed {
  bool ok = false;
  Mode mode = Mode::Window;
  QString error;
  QStringList qt;
};

Parsed parse(const QStringList& args) {
  QCommandLineParser parser;
  parser.addHelpOption();
  parser.addVersionOption();
  const auto options = allOptions();
  parser.addOptions(options);
  const SplitArguments split = splitArguments(QStringList{QStringLiteral("trit")} + args, options);
  Parsed p;
  p.qt = split.qt;
  if (!parser.parse(split.ours)) {
    p.error = parser.errorText();
    return p;
  }
  p.ok = commandMode(parser, &p.mode, &p.error);
  return p;
}

}  // namespace

class TestCommandLine : public QObject {
  Q_OBJECT

 private slots:
  // The crash of issue 30: Qt Quick reads "--device=N" from QGuiApplication::arguments() as its
  // scene-graph backend. Ours in either spelling, so Qt is given none of it.
  void oursNeverReachQt() {
    const auto options = allOptions();
    const SplitArguments s = splitArguments(
        {QStringLiteral("trit"), QStringLiteral("--device=0"), QStringLiteral("--theme"), QStringLiteral("dark"),
         QStringLiteral("--max-tokens=7"), QStringLiteral("--send"), QStringLiteral("--download"),
         QStringLiteral("-platform"), QStringLiteral("offscreen"), QStringLiteral("--check-startup")},
        options);
    QCOMPARE(s.qt, (QStringList{QStringLiteral("trit"), QStringLiteral("-platform"), QStringLiteral("offscreen")}));
    QCOMPARE(s.ours, (QStringList{QStringLiteral("trit"), QStringLiteral("--device=0"), QStringLiteral("--theme"),
                                  QStringLiteral("dark"), QStringLiteral("--max-tokens=7"), QStringLiteral("--send"),
                                  QStringLiteral("--download"), QStringLiteral("--check-startup")}));
  }

  // "--send --download": the text to send, not the download command.
  void valuesAreNotCommands() {
    const Parsed p = parse({QStringLiteral("--send"), QStringLiteral("--download"), QStringLiteral("--model=m.gguf")});
    QVERIFY2(p.ok, qPrintable(p.error));
    QCOMPARE(p.mode, Mode::Window);
  }

  void bothSpellingsOfEveryCommand() {
    QCOMPARE(parse({QStringLiteral("--download=tiny")}).mode, Mode::Download);
    QCOMPARE(parse({QStringLiteral("--download"), QStringLiteral("tiny")}).mode, Mode::Download);
    QCOMPARE(parse({QStringLiteral("--export-conversation=3"), QStringLiteral("--format=json")}).mode,
             Mode::ExportConversation);
    QCOMPARE(parse({QStringLiteral("--import-conversation"), QStringLiteral("-")}).mode, Mode::ImportConversation);
  }

  // Issue 30 #11: "--download X --list-models" listed and silently skipped the download.
  void twoCommandsAreRefused() {
    Parsed p = parse({QStringLiteral("--download"), QStringLiteral("tiny"), QStringLiteral("--list-models")});
    QVERIFY(!p.ok);
    QCOMPARE(p.error, QStringLiteral("--list-models and --download cannot be combined: give one command at a time"));
    p = parse({QStringLiteral("--list-conversations"), QStringLiteral("--download=tiny")});
    QVERIFY(!p.ok);
    QVERIFY2(p.error.contains(QStringLiteral("--download and --list-conversations cannot be combined")),
             qPrintable(p.error));
  }

  void optionsOfAnotherModeAreRefused() {
    Parsed p = parse({QStringLiteral("--list-models"), QStringLiteral("--retries=3")});
    QVERIFY(!p.ok);
    QCOMPARE(p.error, QStringLiteral("--retries applies to --download only"));
    p = parse({QStringLiteral("--download=tiny"), QStringLiteral("--model"), QStringLiteral("m.gguf")});
    QVERIFY(!p.ok);
    QCOMPARE(p.error, QStringLiteral("--model applies to the window, not to --download"));
    p = parse({QStringLiteral("--format=json")});
    QVERIFY(!p.ok);
    QCOMPARE(p.error, QStringLiteral("--format applies to --export-conversation only"));
    p = parse({QStringLiteral("--list-conversations"), QStringLiteral("--catalog=c.json")});
    QVERIFY(!p.ok);
    QCOMPARE(p.error, QStringLiteral("--catalog applies to the window, --list-models, --download, not to "
                                     "--list-conversations"));
    p = parse({QStringLiteral("--download=tiny"), QStringLiteral("--data-dir"), QStringLiteral("/d")});
    QVERIFY(!p.ok);
    QVERIFY2(p.error.startsWith(QStringLiteral("--data-dir applies to the window, --list-conversations")),
             qPrintable(p.error));
    // Shared options are fine where they apply.
    QVERIFY(
        parse({QStringLiteral("--list-models"), QStringLiteral("--models-dir=/m"), QStringLiteral("--catalog=c")}).ok);
    QVERIFY(parse({QStringLiteral("--data-dir=/d"), QStringLiteral("--export-conversation=1"),
                   QStringLiteral("--format=json")})
                .ok);
    QVERIFY(
        parse({QStringLiteral("--data-dir=/d"), QStringLiteral("--models-dir=/m"), QStringLiteral("--theme=dark")}).ok);
  }

  void missingValueIsAnError() {
    const Parsed p = parse({QStringLiteral("--device")});
    QVERIFY(!p.ok);
    QVERIFY2(p.error.contains(QStringLiteral("device")), qPrintable(p.error));
  }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_command_line.moc"

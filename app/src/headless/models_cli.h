#pragma once
// Headless model commands, run before any window exists (no display needed):
//   trit --download MODEL_ID [--replace | --keep-both] [--catalog URL_OR_FILE] [--models-dir DIR]
//   trit --list-models [--catalog URL_OR_FILE] [--models-dir DIR]
#include <QCommandLineOption>
#include <QList>

class QCommandLineParser;

namespace trit::app {

// --download, --list-models and the download's own options (command_line.h parses them with the rest).
QList<QCommandLineOption> modelsCommandOptions();

// Runs the command `parser` holds (main() made the QCoreApplication) and returns the process exit code:
// 0 success, 1 the operation failed (the reason is printed), 2 the command line or catalogue is wrong.
int runModelsCommand(const QCommandLineParser& parser);

}  // namespace trit::app

#pragma once
// Headless model commands, run before any window exists (no display needed):
//   trit --download MODEL_ID [--catalog URL_OR_FILE] [--models-dir DIR]
//   trit --list-models [--catalog URL_OR_FILE] [--models-dir DIR]
namespace trit::app {

// True when the command line asks for one of the commands above.
bool isModelsCommand(int argc, char** argv);

// Runs it under a QCoreApplication and returns the process exit code: 0 success, 1 the operation
// failed (the reason is printed), 2 the command line or catalogue is wrong.
int runModelsCommand(int argc, char** argv);

}  // namespace trit::app

# The binary's one command-line parser (issue 30): tst_command_line's class lives in its .cpp.
set_target_properties(tst_command_line PROPERTIES AUTOMOC ON)

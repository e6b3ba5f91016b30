// Compiles the Qt tests' shared precompiled header (qt_test_pch.h).

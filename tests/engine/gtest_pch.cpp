// Compiles the engine tests' shared precompiled header (gtest_pch.h).

# Warnings are errors in project code only (never in third-party headers, which come in as SYSTEM).
# -Wnull-dereference is left out: GCC 12 reports false positives inside libstdc++'s stream buffers
# (std::istreambuf_iterator) at -O1 and above, which no project code can silence.
function(trit_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                             -Wold-style-cast -Wcast-align
                                             -Wimplicit-fallthrough -Werror)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12's -O2/-O3 flow analysis reports false positives inside libstdc++'s std::string and
    # std::vector code (GCC bugs 105329, 105651, 106199): kept visible, but not fatal.
    target_compile_options(${target} PRIVATE -Wno-error=restrict -Wno-error=stringop-overflow
                                             -Wno-error=array-bounds)
  endif()
endfunction()

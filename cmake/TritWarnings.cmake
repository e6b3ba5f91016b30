# Warnings are errors in project code only (never in third-party headers, which come in as SYSTEM).
function(trit_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                             -Wold-style-cast -Wcast-align -Wnull-dereference
                                             -Wimplicit-fallthrough -Werror)
  endif()
endfunction()

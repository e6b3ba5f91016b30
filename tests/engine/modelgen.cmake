# trit-cli make-model end to end: a tiny model is written and reported, bad arguments fail with a
# specific message. (The generator's own tests are the modelgen_*_test executables.)
set(_modelgen_tmp ${CMAKE_BINARY_DIR}/test-tmp/modelgen-cli)
file(MAKE_DIRECTORY ${_modelgen_tmp})

add_test(NAME modelgen_cli_make_tiny
         COMMAND trit-cli make-model ${_modelgen_tmp}/tiny.gguf --shape tiny --seed 3)
set_tests_properties(modelgen_cli_make_tiny PROPERTIES
    PASS_REGULAR_EXPRESSION "wrote .*tiny\\.gguf: .*24 tensors, 23 metadata keys, vocab 512 \\(bytes:512\\), seed 3"
    FAIL_REGULAR_EXPRESSION "error"
    LABELS engine TIMEOUT 60)

add_test(NAME modelgen_cli_bad_shape
         COMMAND trit-cli make-model ${_modelgen_tmp}/bad.gguf --shape 256,3,1,512,2)
set_tests_properties(modelgen_cli_bad_shape PROPERTIES
    PASS_REGULAR_EXPRESSION "error: shape '256,3,1,512,2' .*dim is not divisible by the number of heads"
    LABELS engine TIMEOUT 60)

add_test(NAME modelgen_cli_needs_shape
         COMMAND trit-cli make-model ${_modelgen_tmp}/none.gguf --seed 1)
set_tests_properties(modelgen_cli_needs_shape PROPERTIES
    PASS_REGULAR_EXPRESSION "--shape is required"
    LABELS engine TIMEOUT 60)

add_test(NAME modelgen_cli_bad_option
         COMMAND trit-cli make-model ${_modelgen_tmp}/none.gguf --shape tiny --sed 1)
set_tests_properties(modelgen_cli_bad_option PROPERTIES
    PASS_REGULAR_EXPRESSION "unknown option '--sed'"
    LABELS engine TIMEOUT 60)

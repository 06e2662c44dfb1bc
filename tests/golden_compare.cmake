# Replays INPUT and compares the exposition with EXPECTED.
# -DEXPORTER=… -DINPUT=… -DEXPECTED=… ; an optional INPUT with ".args" instead of
# ".input" holds extra replay arguments. Regenerate with scripts/update-golden.
string(REGEX REPLACE "\\.input$" ".args" args_file "${INPUT}")
set(args replay --serial golden --year 2024)
if(EXISTS "${args_file}")
  file(READ "${args_file}" extra)
  string(STRIP "${extra}" extra)
  separate_arguments(extra UNIX_COMMAND "${extra}")
  list(APPEND args ${extra})
endif()
execute_process(COMMAND "${EXPORTER}" ${args} "${INPUT}"
  OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "replay failed (${rc}): ${errors}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT actual STREQUAL expected)
  get_filename_component(name "${EXPECTED}" NAME)
  set(actual_file "${CMAKE_CURRENT_BINARY_DIR}/${name}.actual")
  file(WRITE "${actual_file}" "${actual}")
  message(FATAL_ERROR "exposition differs from ${EXPECTED}\n  actual output: ${actual_file}\n"
    "  diff -u ${EXPECTED} ${actual_file}\n  (scripts/update-golden rewrites the expected files; review the diff)")
endif()

# Replays INPUT and runs `promtool check metrics` on the exposition: the
# output must be valid and free of naming-convention problems.
execute_process(COMMAND "${EXPORTER}" replay --serial promtool --year 2024 "${INPUT}"
  OUTPUT_VARIABLE exposition RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "replay failed (${rc})")
endif()
set(file "${CMAKE_CURRENT_BINARY_DIR}/promtool_input.prom")
file(WRITE "${file}" "${exposition}")
execute_process(COMMAND sh -c "\"${PROMTOOL}\" check metrics < \"${file}\""
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT "${out}${err}" STREQUAL "")
  message(FATAL_ERROR "promtool check metrics (${rc}):\n${out}${err}")
endif()

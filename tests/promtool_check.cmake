# Replays INPUT and runs `promtool check metrics` on the exposition: the
# output must be valid and free of naming-convention problems.
execute_process(COMMAND "${EXPORTER}" replay --serial promtool --year 2024 "${INPUT}"
  OUTPUT_VARIABLE exposition RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "replay failed (${rc})")
endif()
# One file per input: the promtool tests run in parallel.
get_filename_component(name "${INPUT}" NAME_WE)
set(file "${CMAKE_CURRENT_BINARY_DIR}/promtool_${name}.prom")
file(WRITE "${file}" "${exposition}")
execute_process(COMMAND sh -c "\"${PROMTOOL}\" check metrics < \"${file}\""
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT "${out}${err}" STREQUAL "")
  message(FATAL_ERROR "promtool check metrics (${rc}):\n${out}${err}")
endif()

#include "parsers/logcat_line.h"

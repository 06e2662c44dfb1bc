#include "parsers/logcat_stream.h"

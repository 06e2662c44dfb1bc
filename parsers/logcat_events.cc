#include "parsers/logcat_events.h"

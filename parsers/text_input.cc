#include "parsers/text_input.h"

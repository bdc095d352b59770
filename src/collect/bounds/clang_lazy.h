/*
 * libclang, loaded when the bounds collector first parses a file.
 *
 * libclang pulls in LLVM (well over 100 MB mapped, tens of milliseconds of
 * relocations), which no other command should pay for, so veles is not
 * linked with it: clang_lazy_load() dlopens the library meson found at
 * configure time and fills this table. The front end calls through it
 * (`cx->clang_visitChildren(...)`); a function it needs must be listed in
 * CLANG_LAZY_FUNCS.
 */
#ifndef COLLECT_BOUNDS_CLANG_LAZY_H
#define COLLECT_BOUNDS_CLANG_LAZY_H

#include <clang-c/Index.h>

/* clang-format off */
#define CLANG_LAZY_FUNCS(X) \
	X(clang_createIndex) \
	X(clang_disposeIndex) \
	X(clang_parseTranslationUnit2) \
	X(clang_disposeTranslationUnit) \
	X(clang_getNumDiagnostics) \
	X(clang_getDiagnostic) \
	X(clang_getDiagnosticSeverity) \
	X(clang_getDiagnosticLocation) \
	X(clang_getDiagnosticSpelling) \
	X(clang_disposeDiagnostic) \
	X(clang_getTranslationUnitCursor) \
	X(clang_visitChildren) \
	X(clang_getCursorKind) \
	X(clang_getCursorLocation) \
	X(clang_getCursorExtent) \
	X(clang_getRangeStart) \
	X(clang_getRangeEnd) \
	X(clang_getExpansionLocation) \
	X(clang_Location_isFromMainFile) \
	X(clang_Location_isInSystemHeader) \
	X(clang_getCursorSpelling) \
	X(clang_getCString) \
	X(clang_disposeString) \
	X(clang_getCursorType) \
	X(clang_getCanonicalType) \
	X(clang_getPointeeType) \
	X(clang_isConstQualifiedType) \
	X(clang_isVolatileQualifiedType) \
	X(clang_Type_getSizeOf) \
	X(clang_getCursorReferenced) \
	X(clang_isCursorDefinition) \
	X(clang_equalCursors) \
	X(clang_Cursor_Evaluate) \
	X(clang_EvalResult_getKind) \
	X(clang_EvalResult_isUnsignedInt) \
	X(clang_EvalResult_getAsLongLong) \
	X(clang_EvalResult_getAsUnsigned) \
	X(clang_EvalResult_dispose) \
	X(clang_tokenize) \
	X(clang_disposeTokens) \
	X(clang_getTokenKind) \
	X(clang_getTokenSpelling) \
	X(clang_getTokenExtent) \
	X(clang_getFile) \
	X(clang_getLocationForOffset) \
	X(clang_getRange) \
	X(clang_getFileName) \
	X(clang_Cursor_getNumArguments) \
	X(clang_Cursor_getArgument) \
	X(clang_getCursorSemanticParent) \
	X(clang_Cursor_getStorageClass) \
	X(clang_isExpression) \
	X(clang_getCursorLinkage)
/* clang-format on */

struct clang_api {
#define CLANG_LAZY_FIELD(name) __typeof__(name) *name;
	CLANG_LAZY_FUNCS(CLANG_LAZY_FIELD)
#undef CLANG_LAZY_FIELD
};

/*
 * Loads libclang once and returns its table in *@out; ERR_GENERIC with one
 * line ("cannot load libclang (...): ...") when it is not there.
 */
int clang_lazy_load(const struct clang_api **out);

#endif

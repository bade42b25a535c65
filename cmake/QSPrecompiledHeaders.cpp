// The source of the QSPrecompiledHeaders object library
// (cmake/QSPrecompiledHeaders.cmake): the target exists to build the PCH
// that the project's libraries share; this file itself defines nothing.

/**
 * Every device of this folder (README.md), loaded together so that a process's start decides
 * and reports all of them (`reportFastPaths`).
 */
import './answer-first';
import './compiled-schema';
import './half-open';
import './in-flight-answer';
import './kysely-raw';
import './lean-json';
import './pg-wire';
import './prebuilt-messages';

export { fastPathStates, reportFastPaths } from './fast-paths';

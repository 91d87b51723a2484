/** Types the supervisor's parts share (engine, scheduler, evaluator, config watches, limit
 * parks), kept apart from the engine so none of them imports the engine that builds them
 * (issue 47: no file cycles). */
import type { BrokerConfig } from '../config/schema.js';

/** The `supervisor:` section of the broker's config. */
export type SupervisorConfig = BrokerConfig['supervisor'];

#!/usr/bin/env node
/** `terminal-mcp-registry`: the session registry's operator commands (registry-cleanup-cli.ts). */
import { registryCleanupMain } from '../effects/launch/registry-cleanup-cli.js';

process.exitCode = await registryCleanupMain(process.argv.slice(2));

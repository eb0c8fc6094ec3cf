// Child of tool-spawner.test.ts: starts the tool spawner, starts a long tool through it, prints both process ids
// and waits to be killed.
import { run } from '../../../server/media/run';
import { startToolSpawner, toolSpawnerPid } from '../../../server/media/spawner';

await startToolSpawner();
const pidFile = process.argv[2]!;
void run('sh', ['-c', `echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile} && exec sleep 60`]).catch(() => {});
console.log(`spawner ${toolSpawnerPid()}`);
setInterval(() => {}, 1000);

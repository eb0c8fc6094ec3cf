// Child of tool-spawner.test.ts: starts the tool spawner, starts a long tool through it, prints both process ids
// and waits to be killed.
import { run, ToolLimits, withToolLimits } from '../../../server/media/run';
import { ToolSpawner } from '../../../server/media/spawner';

const spawner = new ToolSpawner({ enabled: true });
await spawner.start();
const pidFile = process.argv[2]!;
void withToolLimits(new ToolLimits({ spawner }), () => run('sh', ['-c', `echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile} && exec sleep 60`])).catch(() => {});
console.log(`spawner ${spawner.pid}`);
setInterval(() => {}, 1000);

// The first-hour checks (firstHour.e2e.mjs) with VS Code in Simplified Chinese (`--locale zh-cn`).
import { firstHourSuite } from './firstHour.e2e.mjs';

firstHourSuite({ locale: 'zh-cn' });

/** The shift view at 375×812 (support/shift-view.ts): the prompt answered from the banner, the job followed on the list. */
import { MOBILE } from '../support/browser.ts';
import { describeShiftView } from '../support/shift-view.ts';

describeShiftView(MOBILE);

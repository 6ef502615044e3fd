import { render } from 'preact';

render(<p>ZCode</p>, document.getElementById('root') ?? document.body);
